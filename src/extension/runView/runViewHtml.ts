// The run view's HTML shell. Pure (no `vscode`): the panel passes the webview's cspSource and
// the asWebviewUri() strings, so the CSP and the escaping are tested without an editor.
import { randomBytes } from 'node:crypto';

export interface RunViewHtmlOptions {
  /** `webview.cspSource`. */
  cspSource: string;
  /** A fresh `createNonce()` per load. */
  nonce: string;
  /** dist/webview/runView.js as a webview URI. */
  scriptUri: string;
  /** media/runView.css as a webview URI. */
  styleUri: string;
  /** @vscode/codicons' dist/codicon.css as a webview URI (its codicon.ttf must sit next to it). */
  codiconsUri: string;
  title: string;
  /** What the page says until its script draws (default: the run view's). */
  loading?: string;
}

/** 128 random bits for the CSP nonce, base64 (valid in a `'nonce-…'` source). */
export function createNonce(): string {
  return randomBytes(16).toString('base64');
}

/**
 * The CSP: nothing by default; scripts only by nonce (no eval, no inline handlers); styles
 * from the extension's files or nonce-stamped <style>; fonts (codicons) from the extension.
 * @vscode-elements (Lit) adopts its styles as constructed stylesheets, which CSP does not
 * govern, so no 'unsafe-inline' is needed; the view sets `litNonce` for Lit's <style> fallback.
 */
export function runViewCsp(cspSource: string, nonce: string): string {
  return [
    `default-src 'none'`,
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ') + ';';
}

export function runViewHtml(o: RunViewHtmlOptions): string {
  const nonce = escapeAttr(o.nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttr(runViewCsp(o.cspSource, o.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeAttr(o.codiconsUri)}" id="vscode-codicon-stylesheet" nonce="${nonce}">
<link rel="stylesheet" href="${escapeAttr(o.styleUri)}" nonce="${nonce}">
<title>${escapeHtml(o.title)}</title>
</head>
<body>
<main id="app" aria-live="off"><p class="loading">${escapeHtml(o.loading ?? 'Loading the run…')}</p></main>
<script nonce="${nonce}" src="${escapeAttr(o.scriptUri)}"></script>
</body>
</html>
`;
}

/** For a double-quoted attribute value (single quotes, as in the CSP, stay readable). */
export function escapeAttr(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
