// The run view in a real browser (Debian's Chromium through playwright-core) with a hostile
// run: the real HTML shell from runViewHtml.ts, the real bundle from dist/webview, served over
// loopback HTTP so the CSP <meta> applies as it does in a VS Code webview. Agent text must show
// as literal text and never run; an inline script slipped into the shell must be blocked by
// the CSP itself.
import type { Browser, Page } from 'playwright-core';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RunEvent } from '../../src/engine/domain/events';
import type { Plan } from '../../src/engine/domain/plan';
import { foldEvents } from '../../src/engine/domain/projection';
import { createNonce, runViewHtml } from '../../src/extension/runView/runViewHtml';
import type { ToWebview } from '../../src/protocol/webviewMessages';
import { EventBuilder } from '../helpers/eventBuilder';

// Browser globals, for the callbacks that run in the page (the Node tsconfig has no DOM lib).
declare const window: any;
declare const document: any;
 

const CHROMIUM = '/usr/bin/chromium';
const ROOT = join(__dirname, '..', '..');
const BUNDLE = join(ROOT, 'dist', 'webview', 'runView.js');

const ESC = '\u001b';
const PAYLOADS = [
  '<script>window.__pwned=1</script>',
  '<img src=x onerror="window.__pwned=2">',
  '<a href="javascript:window.__pwned=3">click me</a>',
  '<iframe srcdoc="<script>parent.__pwned=4</script>"></iframe>',
  '<svg onload="window.__pwned=5"></svg>',
  `${ESC}[2J${ESC}]0;title\u0007 ansi`,
  'rtl \u202Eexe.txt',
];
const HOSTILE = PAYLOADS.join(' ');

function hostileState() {
  const plan: Plan = {
    goal: `Goal ${HOSTILE}`,
    rationale: `Because ${HOSTILE}`,
    tasks: [
      { id: 'a', title: `Title ${PAYLOADS[0]} ${PAYLOADS[1]}`, description: `Desc ${HOSTILE}`, acceptance: [HOSTILE], dependsOn: [], files: [PAYLOADS[1]!] },
      { id: 'b', title: `Second ${PAYLOADS[2]} ${PAYLOADS[3]}`, description: HOSTILE, acceptance: [], dependsOn: ['a'] },
    ],
  };
  const b = new EventBuilder('20260101-000000-evil', plan);
  b.add({ type: 'plan_approved', by: 'autopilot' });
  b.move('a', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED');
  const verdict = {
    decision: 'changes_required' as const,
    summary: `Critic ${HOSTILE}`,
    findings: [{ file: PAYLOADS[1], line: 3, severity: 'blocker' as const, category: 'security' as const, message: `Finding ${HOSTILE}` }],
  };
  b.add({ type: 'critic_verdict', taskId: 'a', review: 1, verdict, blocking: 1 });
  b.move('a', 'CRITIC_CHANGES_REQUIRED');
  (b.events.at(-1) as Extract<RunEvent, { type: 'task_transition' }>).reason = `Reason ${HOSTILE}`;
  const state = foldEvents(b.events);
  assert.ok(state);
  return state;
}

function page(origin: string, nonce: string, inject: boolean): string {
  const html = runViewHtml({
    cspSource: origin,
    nonce,
    scriptUri: `${origin}/dist/webview/runView.js`,
    styleUri: `${origin}/media/runView.css`,
    codiconsUri: `${origin}/dist/codicons/codicon.css`,
    title: `Run ${PAYLOADS[0]}`,
  });
  if (!inject) return html;
  // What a bug in the shell (or a hostile title that escaped escaping) would look like: the
  // CSP alone must keep these from running.
  const injected = [
    '<script>window.__pwned = "inline";</script>',
    '<img src="/missing.png" onerror="window.__pwned = \'handler\'">',
    '<a id="jslink" href="javascript:window.__pwned=\'link\'">js link</a>',
  ].join('\n');
  return html.replace('<body>', `<body>\n${injected}`);
}

const FILES: Record<string, [string, string]> = {
  '/dist/webview/runView.js': [BUNDLE, 'text/javascript'],
  '/media/runView.css': [join(ROOT, 'media', 'runView.css'), 'text/css'],
  '/dist/codicons/codicon.css': [join(ROOT, 'dist', 'codicons', 'codicon.css'), 'text/css'],
  '/dist/codicons/codicon.ttf': [join(ROOT, 'dist', 'codicons', 'codicon.ttf'), 'font/ttf'],
};

const skip = !existsSync(CHROMIUM)
  ? `${CHROMIUM} is missing (apt-get install chromium; CI installs it)`
  : !existsSync(BUNDLE)
    ? `${BUNDLE} is missing: run npm run build`
    : false;

describe('run view under its CSP in Chromium, with a hostile run', { skip, timeout: 60_000 }, () => {
  let server: Server;
  let origin = '';
  const nonce = createNonce();
  let browser: Browser;

  before(async () => {
    server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/' || path === '/injected') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(page(origin, nonce, path === '/injected'));
        return;
      }
      const file = FILES[path];
      if (!file || !existsSync(file[0])) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': file[1] });
      res.end(readFileSync(file[0]));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  async function open(path: string) {
    const context = await browser.newContext();
    const p = await context.newPage();
    const requests: string[] = [];
    const dialogs: string[] = [];
    const errors: string[] = [];
    p.on('request', (r) => requests.push(r.url()));
    p.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    p.on('pageerror', (e) => errors.push(e.message));
    // A string, not a function: tsx would wrap a function with its `__name` helper, unknown in the page.
    await p.addInitScript(`
      window.__posted = [];
      window.__violations = [];
      document.addEventListener('securitypolicyviolation', function (e) {
        window.__violations.push({ directive: e.effectiveDirective, sample: e.sample, blocked: e.blockedURI });
      });
      window.acquireVsCodeApi = function () {
        return {
          postMessage: function (m) { window.__posted.push(JSON.parse(JSON.stringify(m))); },
          getState: function () { return undefined; },
          setState: function () {},
        };
      };
    `);
    await p.goto(`${origin}${path}`);
    await posted(p, 'ready', errors);
    const message: ToWebview = { type: 'state', state: hostileState() };
    await p.evaluate((m) => window.postMessage(m, '*'), message);
    await posted(p, 'rendered', errors);
    return { context, page: p, requests, dialogs, errors };
  }

  /**
   * Waits for the view to post `type`. Polls with evaluate (run over CDP): waitForFunction would
   * compile its predicate in the page, which this CSP (no 'unsafe-eval') rightly refuses.
   */
  async function posted(p: Page, type: string, errors: string[]) {
    for (let i = 0; i < 200; i++) {
      const types = await p.evaluate(() => (window as unknown as { __posted: Array<{ type: string }> }).__posted.map((m) => m.type));
      if (types.includes(type)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.fail(`the view never posted "${type}"; page errors: ${errors.join('; ')}`);
  }

  /** Shows every tab so each view draws its hostile text, and waits until it shows its view. */
  async function visitTabs(p: Page) {
    for (const tab of await p.locator('vscode-tab-header').all()) {
      await tab.click();
      const panel = p.locator(`vscode-tab-panel.tab-${await tab.getAttribute('data-tab')}`);
      await panel.waitFor({ state: 'visible' });
      await panel.locator('.awaiting-history').waitFor({ state: 'detached' });
    }
  }

  async function pwned(p: Page) {
    return p.evaluate(() => {
      const w = window as unknown as { __pwned?: unknown; parent: { __pwned?: unknown } };
      return w.__pwned ?? w.parent.__pwned;
    });
  }

  it('shows hostile agent text as literal text and runs none of it', async () => {
    const { context, page: p, requests, dialogs, errors } = await open('/');
    try {
      await visitTabs(p);
      // Click every link-looking thing the view drew from the payload, if any made it to markup.
      for (const a of await p.locator('a[href^="javascript:"]').all()) await a.click({ timeout: 1000 }).catch(() => undefined);
      await p.waitForTimeout(200);

      assert.equal(await pwned(p), undefined, 'a payload ran');
      assert.deepEqual(dialogs, []);
      assert.deepEqual(errors, [], 'page errors while drawing the hostile run');
      const dom = await p.evaluate(() => ({
        text: document.body.innerText + '\n' + document.body.textContent,
        scripts: document.scripts.length,
        frames: document.querySelectorAll('iframe, img[onerror], svg[onload], a[href^="javascript:"]').length,
        handlers: [...document.querySelectorAll('*')].filter((el) => [...el.attributes].some((a) => /^on/i.test(a.name))).length,
      }));
      assert.equal(dom.scripts, 1, 'only the nonce-stamped bundle is a script');
      assert.equal(dom.frames, 0, 'a payload became an element');
      assert.equal(dom.handlers, 0, 'a payload became an event handler');
      for (const payload of ['<script>window.__pwned=1</script>', '<img src=x onerror="window.__pwned=2">', '<iframe srcdoc=']) {
        assert.ok(dom.text.includes(payload), `not shown as text: ${payload}`);
      }
      assert.ok(dom.text.includes('Goal <script>'), 'the goal is shown');
      assert.ok(dom.text.includes('Finding <script>') || dom.text.includes('Critic <script>'), 'the critic text is shown');
      const foreign = requests.filter((u) => !u.startsWith(`${origin}/`));
      assert.deepEqual(foreign, [], 'requests left the local server');
      // `<img src=x>` as text must not have been fetched either.
      assert.deepEqual(requests.filter((u) => /\/x$/.test(u)), []);
    } finally {
      await context.close();
    }
  });

  it('blocks an inline script, an inline handler and a javascript: link injected into the shell', async () => {
    const { context, page: p, requests, dialogs } = await open('/injected');
    try {
      await p.locator('#jslink').click();
      // The browser reports each blocked script as it meets it: wait for both reports (or the deadline).
      type Violation = { directive: string; sample: string; blocked: string };
      const blockedScripts = async () => {
        const all = await p.evaluate(() => (window as unknown as { __violations: Violation[] }).__violations);
        const inline = all.filter((v) => v.directive === 'script-src-elem' || v.directive === 'script-src' || v.directive === 'script-src-attr');
        return {
          all,
          script: inline.some((v) => v.sample.includes('__pwned = "inline"') || v.blocked === 'inline'),
          handler: inline.some((v) => v.directive === 'script-src-attr' || v.sample.includes('handler')),
        };
      };
      let blocked = await blockedScripts();
      for (let i = 0; i < 100 && !(blocked.script && blocked.handler); i++) {
        await p.waitForTimeout(50);
        blocked = await blockedScripts();
      }
      assert.ok(blocked.script, `no violation for the inline script: ${JSON.stringify(blocked.all)}`);
      assert.ok(blocked.handler, `no violation for the handler: ${JSON.stringify(blocked.all)}`);
      assert.equal(await pwned(p), undefined, 'the CSP let an injected script run');
      assert.deepEqual(dialogs, []);
      // The bundle still ran under the same CSP: the run is drawn.
      assert.ok((await p.locator('body').innerText()).includes('Goal <script>'));
      assert.deepEqual(requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('javascript:')), []);
    } finally {
      await context.close();
    }
  });
});
