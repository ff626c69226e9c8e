// The harness suite's own webview (suite/harness.test.ts): its markup and the elements a test
// reads and clicks, kept together so the selectors name what the page holds.
import { click, readTexts, waitFor, WEBVIEW_FRAMES } from '../runnerControl';

const inWebview = (selector: string) => ({ selector, frames: WEBVIEW_FRAMES });

/** A page with a text and a button that posts `{ pressed: true }` to the extension. */
export const HARNESS_WEBVIEW_HTML = `<!DOCTYPE html>
<html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'nonce-harness';">
</head><body>
<p id="harness-text">Harness webview</p>
<button id="harness-button">Press me</button>
<script nonce="harness">
  const vscode = acquireVsCodeApi();
  document.getElementById('harness-button').addEventListener('click', () => vscode.postMessage({ pressed: true }));
</script>
</body></html>`;

export const harnessWebview = {
  buttonShown: () => waitFor(inWebview('#harness-button')),
  texts: () => readTexts(inWebview('#harness-text')),
  pressButton: () => click(inWebview('#harness-button')),
};
