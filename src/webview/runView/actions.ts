// Clicks and keys on anything with `data-action` become messages to the extension. One
// delegated listener serves the graph's hundreds of nodes and the ledger's entries alike.
import type { FromWebview } from '../../protocol/webviewMessages';

export type Action = 'reveal' | 'diff' | 'integration-diff' | 'gate-output' | 'pull-request';

/** The data attributes that make an element post `action`. */
export function actionAttrs(action: Action, target: { taskId?: string; seq?: number; key?: string } = {}): Record<string, string> {
  return {
    'data-action': action,
    ...(target.key !== undefined ? { 'data-key': target.key } : {}),
    ...(target.taskId !== undefined ? { 'data-task': target.taskId } : {}),
    ...(target.seq !== undefined ? { 'data-seq': String(target.seq) } : {}),
  };
}

export function messageFor(el: Element): FromWebview | undefined {
  const taskId = el.getAttribute('data-task') ?? undefined;
  const seq = Number(el.getAttribute('data-seq'));
  switch (el.getAttribute('data-action') as Action | null) {
    case 'reveal':
      return taskId !== undefined ? { type: 'revealTask', taskId } : undefined;
    case 'diff':
      return taskId !== undefined ? { type: 'showTaskDiff', taskId } : undefined;
    case 'integration-diff':
      return { type: 'showIntegrationDiff' };
    case 'pull-request':
      return { type: 'openPullRequest', key: el.getAttribute('data-key') ?? '' };
    case 'gate-output':
      return Number.isInteger(seq) && seq > 0 ? { type: 'showGateOutput', seq } : undefined;
    default:
      return undefined;
  }
}

export function listenForActions(root: HTMLElement, post: (message: FromWebview) => void): void {
  const fire = (event: Event) => {
    const el = (event.target as Element | null)?.closest('[data-action]');
    if (!el || !root.contains(el)) return;
    const message = messageFor(el);
    if (!message) return;
    event.preventDefault();
    post(message);
  };
  root.addEventListener('click', fire);
  // SVG nodes are focusable but are not buttons: Enter and Space act like a click.
  root.addEventListener('keydown', (event) => {
    if ((event.key === 'Enter' || event.key === ' ') && (event.target as Element).matches?.('svg [data-action]')) fire(event);
  });
}
