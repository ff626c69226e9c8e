import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createNonce, runViewCsp, runViewHtml } from '../../../src/extension/runView/runViewHtml';

const CSP_SOURCE = 'https://*.vscode-cdn.net';

function html(nonce = createNonce(), title = 'Run 2026 — add limits') {
  return runViewHtml({
    cspSource: CSP_SOURCE,
    nonce,
    scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview/runView.js',
    styleUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/media/runView.css',
    codiconsUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/media/codicons/codicon.css',
    title,
  });
}

const cspOf = (page: string) => /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(page)![1]!;
const directives = (csp: string) => new Map(csp.split(';').map((d) => d.trim()).filter(Boolean).map((d) => [d.split(/\s+/)[0]!, d.split(/\s+/).slice(1)]));

describe('run view HTML', () => {
  it('loads the bundle with the nonce and nothing else as script', () => {
    const nonce = createNonce();
    const page = html(nonce);
    const scripts = [...page.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    assert.equal(scripts.length, 1);
    assert.ok(scripts[0]!.includes(`nonce="${nonce}"`));
    assert.ok(scripts[0]!.includes('src="https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview/runView.js"'));
    assert.doesNotMatch(page, /<script[^>]*>[^<]+<\/script>/, 'no inline script body');
    assert.doesNotMatch(page, /\son[a-z]+=/i, 'no inline event handlers');
    assert.doesNotMatch(page, /\sstyle=/i, 'no inline style attributes');
  });

  it('has a CSP that denies by default and allows scripts only by nonce, without eval, https: or unsafe-inline scripts', () => {
    const nonce = createNonce();
    const csp = cspOf(html(nonce));
    assert.equal(csp, runViewCsp(CSP_SOURCE, nonce));
    const d = directives(csp);
    assert.deepEqual(d.get('default-src'), ["'none'"]);
    assert.deepEqual(d.get('script-src'), [`'nonce-${nonce}'`]);
    assert.deepEqual(d.get('style-src'), [CSP_SOURCE, `'nonce-${nonce}'`]);
    assert.deepEqual(d.get('font-src'), [CSP_SOURCE]);
    assert.deepEqual(d.get('img-src'), [CSP_SOURCE, 'data:']);
    assert.doesNotMatch(csp, /unsafe-eval|unsafe-inline|wasm-unsafe-eval/);
    assert.doesNotMatch(csp.replaceAll(CSP_SOURCE, ''), /https?:|\*/, 'no remote origins besides the webview resource source');
  });

  it('escapes the title and the attribute values', () => {
    const page = html('n0nce', '<script>alert(1)</script> & "quotes"');
    assert.match(page, /<title>&lt;script&gt;alert\(1\)&lt;\/script&gt; &amp; &quot;quotes&quot;<\/title>/);
    const attr = runViewHtml({ cspSource: 'x', nonce: 'a"b', scriptUri: 'u"><script>', styleUri: 's', codiconsUri: 'c', title: 't' });
    assert.doesNotMatch(attr, /u"><script>/);
    assert.match(attr, /nonce="a&quot;b"/);
  });

  it('links the codicons and the view stylesheet', () => {
    const page = html();
    assert.match(page, /<link rel="stylesheet" href="[^"]*\/codicon\.css" id="vscode-codicon-stylesheet"/);
    assert.match(page, /<link rel="stylesheet" href="[^"]*\/media\/runView\.css"/);
  });

  it('makes a fresh 128-bit nonce each time', () => {
    const nonces = new Set(Array.from({ length: 100 }, createNonce));
    assert.equal(nonces.size, 100);
    for (const n of nonces) assert.equal(Buffer.from(n, 'base64').length, 16);
  });
});
