// Entry point of the run view webview (bundled to dist/webview/runView.js, loaded by the HTML
// from src/extension/runView/runViewHtml.ts under a nonce-only CSP).
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-tabs/index.js';
import '@vscode-elements/elements/dist/vscode-tab-header/index.js';
import '@vscode-elements/elements/dist/vscode-tab-panel/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import type { ToWebview } from '../../protocol/webviewMessages';
import { RunViewApp } from './runViewApp';
import { connectToHost } from './vscodeApi';

// Lit adopts its styles as constructed stylesheets, which the CSP does not govern. Where a
// browser lacks them, Lit falls back to <style> elements and stamps them with this nonce.
(globalThis as { litNonce?: string }).litNonce = (document.currentScript as HTMLScriptElement | null)?.nonce || undefined;

const host = connectToHost();
const app = new RunViewApp(document.getElementById('app') ?? document.body, host);

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const message = event.data as Partial<ToWebview> | null;
  if (message?.type === 'state' && message.state && typeof message.state === 'object') app.receive(message as ToWebview);
  else if (message?.type === 'events' && Array.isArray(message.events)) app.receive(message as ToWebview);
  else if (message?.type === 'focus') app.receive(message as ToWebview);
  else if (message?.type === 'driven' && typeof message.driven === 'boolean') app.receive(message as ToWebview);
  else if (message?.type === 'repository' && typeof message.hasPullRequestRemote === 'boolean') app.receive(message as ToWebview);
  else if (message?.type === 'decisions' && Array.isArray(message.decisions) && typeof message.seq === 'number') app.receive(message as ToWebview);
  else if (message?.type === 'histories' && message.histories && typeof message.seq === 'number') app.receive(message as ToWebview);
  else if (message?.type === 'transcript' && Array.isArray(message.calls)) app.receive(message as ToWebview);
});

host.post({ type: 'ready' });
