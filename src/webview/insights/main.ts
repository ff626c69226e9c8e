// Entry point of the Insights webview (bundled to dist/webview/insights.js, loaded under the same
// nonce-only CSP as the run view: src/extension/insights/insightsPanel.ts).
import type { FromInsights, ToInsights } from '../../protocol/insightsMessages';
import { renderInsights } from './insightsView';

interface VsCodeApi {
  postMessage(message: FromInsights): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const api = acquireVsCodeApi();
const root = document.getElementById('app') ?? document.body;

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const message = event.data as Partial<ToInsights> | null;
  if (message?.type === 'stats' && message.stats && Array.isArray(message.warnings)) {
    root.replaceChildren(renderInsights(message.stats, (runIds) => api.postMessage({ type: 'openRuns', runIds: [...runIds] })));
  }
});

api.postMessage({ type: 'ready' });
