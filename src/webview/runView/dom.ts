// The only way the run view builds DOM. Text goes into text nodes, never into markup, and
// attributes that could run code or carry inline style (forbidden by the CSP) are refused, so
// agent output (titles, reasons, gate output) always shows as literal text.

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined>;

const SVG_NS = 'http://www.w3.org/2000/svg';

/** An HTML element. `attrs` are attributes (`class`, `data-*`, `aria-*`, `title`…); false/undefined are left out. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs, ...children: Child[]): HTMLElementTagNameMap[K];
export function h(tag: string, attrs?: Attrs, ...children: Child[]): HTMLElement;
export function h(tag: string, attrs: Attrs = {}, ...children: Child[]): HTMLElement {
  return fill(document.createElement(tag), attrs, children);
}

/** An SVG element; geometry goes in attributes, colours in classes. */
export function s<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): SVGElementTagNameMap[K] {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children);
}

/**
 * Runs `then` once the next frame has been laid out: a tab just selected shows its panel only
 * then, and scrolling inside a panel that is not shown yet does nothing.
 */
export function afterLayout(then: () => void): void {
  requestAnimationFrame(() => requestAnimationFrame(then));
}

/** Scrolls `scroller` (and only it: scrollIntoView would move the whole page too) so that `el` sits in its middle. */
export function centerIn(scroller: Element, el: Element): void {
  const box = el.getBoundingClientRect();
  const view = scroller.getBoundingClientRect();
  scroller.scrollTop += box.top - view.top - (view.height - box.height) / 2;
  scroller.scrollLeft += box.left - view.left - (view.width - box.width) / 2;
}

/** An icon from @vscode/codicons. */
export const icon = (name: string, extraClass = ''): HTMLElement =>
  h('span', { class: `codicon codicon-${name}${extraClass ? ` ${extraClass}` : ''}`, 'aria-hidden': 'true' });

function fill<E extends Element>(el: E, attrs: Attrs, children: Child[]): E {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (name === 'style' || name.toLowerCase().startsWith('on') || name === 'href' || name === 'src') {
      throw new Error(`dom: attribute "${name}" is not allowed (use classes and event delegation)`);
    }
    el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
  return el;
}
