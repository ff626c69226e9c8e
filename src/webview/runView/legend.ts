import { h } from './dom';

/** One entry of a colour key: the class that colours its swatch, and what that colour marks. */
export interface LegendEntry {
  swatchClass: string;
  label: string;
}

/** A colour key (the graph's by task state, the timeline's by phase). */
export function legend(ariaLabel: string, entries: readonly LegendEntry[]): HTMLElement {
  return h(
    'div',
    { class: 'legend', role: 'list', 'aria-label': ariaLabel },
    ...entries.map(({ swatchClass, label }) => h('span', { class: `legend-item ${swatchClass}`, role: 'listitem' }, h('span', { class: 'swatch' }), label)),
  );
}
