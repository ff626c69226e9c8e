// A button of the controls above the tabs: it posts its action's message (actions.ts) when clicked.
import { actionAttrs, type Action } from './actions';
import { h } from './dom';

export function controlButton(
  label: string,
  codicon: string,
  action: Action,
  target: Parameters<typeof actionAttrs>[1],
  options: { title?: string; secondary?: boolean; disabled?: boolean } = {},
): HTMLElement {
  return h('vscode-button', { icon: codicon, secondary: options.secondary, disabled: options.disabled, title: options.title, ...actionAttrs(action, target) }, label);
}
