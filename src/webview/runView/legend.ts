import { h } from './dom';
import { TONE_LEGEND, toneClass } from './stateStyle';

/** The colour key shared by the graph and the timeline. */
export function legend(): HTMLElement {
  return h(
    'div',
    { class: 'legend', role: 'list', 'aria-label': 'Colours by task state' },
    ...TONE_LEGEND.map(({ tone, label }) => h('span', { class: `legend-item ${toneClass(tone)}`, role: 'listitem' }, h('span', { class: 'swatch' }), label)),
  );
}
