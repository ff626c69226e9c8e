// Clicks and keys on anything with `data-action` become messages to the extension. One
// delegated listener serves the graph's hundreds of nodes, the ledger's entries and the
// decision buttons alike.
import type { FromWebview } from '../../protocol/webviewMessages';
import { messageFor } from './actions';

/** Posts the message of the clicked action; `onAction` sees the element too (the view selects a task it names). */
export function listenForActions(root: HTMLElement, post: (message: FromWebview) => void, onAction: (el: Element) => void = () => {}): void {
  const fire = (event: Event) => {
    const el = (event.target as Element | null)?.closest('[data-action]');
    if (!el || !root.contains(el)) return;
    const message = messageFor(el);
    if (!message) return;
    event.preventDefault();
    onAction(el);
    post(message);
  };
  root.addEventListener('click', fire);
  // SVG nodes are focusable but are not buttons: Enter and Space act like a click.
  root.addEventListener('keydown', (event) => {
    if ((event.key === 'Enter' || event.key === ' ') && (event.target as Element).matches?.('svg [data-action]')) fire(event);
  });
}
