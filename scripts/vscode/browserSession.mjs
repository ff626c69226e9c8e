// One in-VS-Code test session, offline: the VS Code 1.100 server (from code-server's npm
// package) serves the web workbench, Debian's Chromium driven by playwright-core opens it, and
// the extension host on the server loads the extension and runs the mocha suite inside it, the
// way @vscode/test-electron does with desktop VS Code. See ../../../shared/TESTING.md §1 and the
// header of runVsCodeTests.mjs for the runner ⇄ suite controls.
//
// The server ignores --extensionDevelopmentPath/--extensionTestsPath on its command line; the
// workbench takes them from the `payload` query parameter of its URL. The workbench reports the
// suite's end through window.codeAutomationExit(code) and forwards its log, including the
// extension host's console, to window.codeAutomationLog(level, args).
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { format, inspect } from 'node:util';
import { chromium } from 'playwright-core';
import { startControlServer } from './controlServer.mjs';
import { chromiumPath, serverMain } from './prerequisites.mjs';
import { killTree } from './processTree.mjs';
import {
  cleanEnv,
  prepareSession,
  repoRoot,
  SCREENSHOT_LIST,
  screenshotsDir,
  sessionEnv,
  suiteIndex,
  vsixPath,
  writeHarnessExtension,
} from './sessionSetup.mjs';

const BROWSER_ARGS = [
  '--no-sandbox', // Chromium refuses to run as root with its sandbox
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
const VIEWPORT = { width: 1400, height: 900 };
const SERVER_START_TIMEOUT_MS = 30_000;
const MAX_RELOADS = 10;

// Workbench chatter that says nothing about the extension or the suite. It still goes to the
// session log; --verbose prints it too.
const WORKBENCH_NOISE = [
  /^Resolv(ing|ed) connection token/,
  /^Creating a socket/,
  /^\[Service Worker\]/,
  /^ChatSessionStore:/,
  /^Updating additional builtin extensions cache/,
  /^\[lifecycle\]/,
  /^Creation of workbench contribution '.*' took \d+ms/,
  /open-vsx\.org/,
  /^DialogService: refused to show dialog in tests\. Contents: Do you trust/,
];

/** Writes everything to the session log file and the interesting part to stdout, prefixed. */
class SessionLog {
  constructor(name, file, verbose) {
    this.prefix = `[vscode:${name}]`;
    this.file = file;
    this.verbose = verbose;
    this.recent = [];
    /** Mocha's "N failing" report, kept so the summary at the very end can repeat it. */
    this.failureReport = [];
    this.inFailureReport = false;
    /** While the window reloads, the old workbench's shutdown errors are not worth printing. */
    this.quiet = false;
  }

  /** `recent`: keep the lines for the tail printed when a session fails (noise is left out). */
  write(source, text, show, recent = true) {
    for (const line of String(text).replace(/\n$/, '').split(/\r?\n/)) {
      const entry = `[${source}] ${line}`;
      appendFileSync(this.file, `${new Date().toISOString()} ${entry}\n`);
      if (recent) this.recent.push(entry);
      this.noteFailureReport(line);
      if (this.recent.length > 60) this.recent.shift();
      if (show || this.verbose) process.stdout.write(`${this.prefix} ${line}\n`);
    }
  }

  /** The workbench's log and the extension host's console: args as given to console.log. */
  workbench(level, args) {
    const parts = Array.isArray(args) ? args : [args];
    const text =
      typeof parts[0] === 'string'
        ? format(...parts)
        : parts.map((p) => (typeof p === 'string' ? p : inspect(p, { depth: 4, breakLength: Infinity }))).join(' ');
    const info = level === 'info' || level === 'log';
    const noise = WORKBENCH_NOISE.some((re) => re.test(text));
    const shown = (info || !this.quiet) && !noise;
    const source = info ? 'workbench' : `workbench:${level}`;
    this.write(source, level === 'error' && shown ? `(error) ${text}` : text, shown, !noise);
  }

  noteFailureReport(line) {
    if (/^\s+\d+ failing$/.test(line)) this.inFailureReport = true;
    else if (/test\(s\) failed/.test(line)) this.inFailureReport = false;
    if (this.inFailureReport && line.trim() && this.failureReport.length < 40) this.failureReport.push(line);
  }

  printTail(count) {
    const shown = Math.min(count, this.recent.length);
    process.stdout.write(`${this.prefix} last ${shown} log lines (all sources; full log: ${this.file}):\n`);
    for (const line of this.recent.slice(-count)) process.stdout.write(`${this.prefix}   ${line}\n`);
  }
}

function installVsix(dirs, env, log) {
  // --server-data-dir and --user-data-dir too: without them the CLI writes to ~/.vscode-server-oss.
  const result = spawnSync(
    process.execPath,
    [
      serverMain,
      '--install-extension',
      vsixPath,
      '--force',
      '--extensions-dir',
      dirs.extensions,
      '--server-data-dir',
      dirs.server,
      '--user-data-dir',
      dirs.user,
    ],
    { env, encoding: 'utf8', timeout: 60_000 },
  );
  log.write('install', `${result.stdout ?? ''}${result.stderr ?? ''}`, false);
  if (result.status !== 0 || !/successfully installed/i.test(result.stdout ?? '')) {
    const output = (result.stderr || result.stdout || '').trim();
    throw new Error(`installing ${vsixPath} failed (exit ${result.status}): ${output}`);
  }
}

/** Starts the server on a free port (--port 0) and resolves with the port once it listens. */
function startServer(dirs, env, log) {
  const child = spawn(
    process.execPath,
    [
      serverMain,
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--without-connection-token',
      '--accept-server-license-terms',
      '--telemetry-level',
      'off',
      // The extension host gets the runner's environment as it is: resolving the login shell's
      // environment (bash -ilc) is not wanted in a test and waits up to 10 s when the shell is slow.
      '--force-disable-user-env',
      '--server-data-dir',
      dirs.server,
      '--user-data-dir',
      dirs.user,
      '--extensions-dir',
      dirs.extensions,
    ],
    // Its own process group: Ctrl-C in a terminal reaches only the runner, which then ends the
    // server with everything it started (processTree.mjs), instead of orphaning the extension host.
    { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const listening = new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the VS Code server did not listen within ${SERVER_START_TIMEOUT_MS / 1000} s`)),
      SERVER_START_TIMEOUT_MS,
    );
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      log.write('server', chunk, false);
      const match = /Extension host agent listening on (\d+)/.exec(chunk);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk) => log.write('server:stderr', chunk, false));
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the VS Code server exited before listening (${signal ?? `exit ${code}`})`));
    });
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? `exit ${code}`)));
  return { child, listening, exited };
}

/** The Chromium main process of a persistent context: our child whose command line has its profile. */
function browserPid(profileDir) {
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(`--user-data-dir=${profileDir}`)) return Number(name);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

function workbenchUrl(port, workspace, extensionDevelopmentPath) {
  const remote = (path) => `vscode-remote://127.0.0.1:${port}${path}`;
  const payload = [
    ['extensionDevelopmentPath', remote(extensionDevelopmentPath)],
    ['extensionTestsPath', remote(suiteIndex)],
    ['skipWelcome', 'true'],
  ];
  const query = new URLSearchParams({ folder: workspace, payload: JSON.stringify(payload) });
  return `http://127.0.0.1:${port}/?${query}`;
}

/** A Playwright locator for `{selector, frames}`: frames are iframe selectors, outermost first. */
function locate(page, { selector, frames = [] }) {
  if (typeof selector !== 'string' || selector === '') throw new Error('a selector is required');
  let scope = page;
  for (const frame of frames) scope = scope.frameLocator(frame);
  return scope.locator(selector);
}

/**
 * Awaits a Playwright action; when it fails inside iframes, the error also says what each frame
 * level holds (how many frames match, and the inner page's text), so that a failure in CI, where
 * no screenshot is read, shows whether the webview was there, still loading, or doubled.
 */
async function saying(page, frames = [], action) {
  try {
    return await action;
  } catch (error) {
    if (frames.length === 0 || !(error instanceof Error)) throw error;
    error.message += `\n${await framesSeen(page, frames)}`;
    throw error;
  }
}

async function framesSeen(page, frames) {
  const seen = [];
  let scope = page;
  for (const frame of frames) {
    const count = await scope.locator(frame).count().catch(() => 0);
    seen.push(`${frame}: ${count} found`);
    if (count !== 1) {
      // A webview still loading its content has a pending frame in place of the active one.
      const pending = frame === 'iframe#active-frame' ? await scope.locator('iframe#pending-frame').count().catch(() => 0) : 0;
      return `frames seen: ${seen.join(', ')}${pending ? ` (${pending} pending)` : ''}`;
    }
    scope = scope.frameLocator(frame);
  }
  const text = await scope.locator('body').innerText({ timeout: 1000 }).catch((error) => `(unreadable: ${error.message.split('\n')[0]})`);
  return `frames seen: ${seen.join(', ')}; the page shows: ${JSON.stringify(text.replace(/\s+/g, ' ').slice(0, 300))}`;
}

/**
 * The VS Code server serves every webview from the workbench's own origin, so all webviews share
 * one service-worker scope, each registering a worker of its own. A webview restored by a reload
 * then finds the last window's worker in control and waits for its own to take over; now and then
 * that wait outlasted a test's 10 s with the view blank (1 of 17 reloads here, and once in CI).
 * Desktop VS Code gives each webview an origin of its own. Unregistered before the reload, the
 * old workers are gone, and a restored webview loads as a first one does.
 */
async function forgetWebviewWorkers(page, log) {
  let forgotten = 'none (no answer in 5 s)';
  const forgetting = page
    .evaluate(async () => {
      const registrations = await navigator.serviceWorker.getRegistrations();
      await Promise.all(registrations.map((registration) => registration.unregister()));
      return registrations.length;
    })
    .then(
      (count) => (forgotten = String(count)),
      (error) => (forgotten = `none (${error.message.split('\n')[0]})`),
    );
  // A page that does not answer is reloaded all the same.
  await withTimeout(forgetting, 5000);
  log.write('runner', `unregistered the webviews' service workers: ${forgotten}`, false);
}

/** The actions the suite can ask for (see controlServer.mjs and test/vscode/suite/runnerControl.ts). */
function runnerActions(session, prepared, page, reload, log) {
  return {
    async screenshot({ name }) {
      const path = screenshotPath(session, name);
      await page.screenshot({ path, caret: 'hide' });
      recordScreenshot(prepared, path);
      return { path };
    },
    async reload() {
      // Answer first: the reload ends the extension host that is waiting for this answer.
      setTimeout(reload, 50);
      return {};
    },
    /** Before a suite opens another webview in the same window: it then loads as a first one does (see forgetWebviewWorkers). */
    async forgetWebviewWorkers() {
      await forgetWebviewWorkers(page, log);
      return {};
    },
    async command({ title, timeoutMs = 10_000 }) {
      // The command palette, as a person would use it: F1, type the title, pick the entry whose
      // label is exactly the title (typing alone could leave a longer match selected).
      await page.keyboard.press('Escape');
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget .quick-input-box input');
      await input.waitFor({ state: 'visible', timeout: timeoutMs });
      await input.fill(`>${title}`);
      const row = page
        .locator('.quick-input-widget .monaco-list-row')
        .filter({ has: page.locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(title)}$`) }) })
        .first();
      await row.waitFor({ state: 'visible', timeout: timeoutMs });
      await row.click();
      return {};
    },
    async keyboard({ type, press, delayMs = 20 }) {
      if (typeof type === 'string') await page.keyboard.type(type, { delay: delayMs });
      for (const key of [press ?? []].flat()) await page.keyboard.press(key);
      return {};
    },
    async click({ selector, frames, timeoutMs = 10_000, button = 'left' }) {
      await saying(page, frames, locate(page, { selector, frames }).first().click({ timeout: timeoutMs, button }));
      return {};
    },
    async waitFor({ selector, frames, state = 'visible', timeoutMs = 10_000 }) {
      await saying(page, frames, locate(page, { selector, frames }).first().waitFor({ state, timeout: timeoutMs }));
      return {};
    },
    async selectOption({ selector, frames, value, timeoutMs = 10_000 }) {
      await saying(page, frames, locate(page, { selector, frames }).first().selectOption(value, { timeout: timeoutMs }));
      return {};
    },
    async texts({ selector, frames }) {
      // textContent, not innerText: SVG elements (the run view's graph) have no innerText.
      return { texts: await locate(page, { selector, frames }).allTextContents() };
    },
    async shownTexts({ selector, frames }) {
      // How much of each element's width is on screen: what the boxes around it that clip their
      // overflow (a tree row's label, the side bar) leave of it. 1 = whole, 0 = cut off entirely.
      const shown = await locate(page, { selector, frames }).evaluateAll((elements) =>
        elements.map((element) => {
          const box = element.getBoundingClientRect();
          let right = window.innerWidth;
          for (let around = element.parentElement; around; around = around.parentElement) {
            if (getComputedStyle(around).overflowX !== 'visible') right = Math.min(right, around.getBoundingClientRect().right);
          }
          const fraction = box.width > 0 ? Math.max(0, Math.min(box.right, right) - box.left) / box.width : 0;
          return { text: element.textContent ?? '', shown: Math.min(1, fraction) };
        }),
      );
      return { shown };
    },
  };
}

function screenshotPath(session, name) {
  const safe = String(name ?? 'screenshot').replace(/[^\w.-]+/g, '_');
  return join(screenshotsDir, `${session.name}-${safe}.png`);
}

/** Lists the screenshot in the session's artifacts, so that the next run of the session removes it first. */
function recordScreenshot(prepared, path) {
  appendFileSync(join(prepared.artifactsDir, SCREENSHOT_LIST), `${path}\n`);
}

/** Waits for `promise`, but no longer than `ms`. */
async function withTimeout(promise, ms) {
  let timer;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

function escapeRegExp(text) {
  return String(text).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Runs `session` and resolves with `{ name, ok, durationMs, reason }`; never rejects. Aborting
 * `signal` (Ctrl-C) ends it early. Everything it starts is ended and its temp folder removed
 * before it resolves (unless `keep`); `trackDir(dir)` tells the caller the temp folder, to
 * remove it also when the process exits without this cleanup.
 */
export async function runBrowserSession(session, { grep, verbose = false, keep = false, signal, trackDir }) {
  const started = Date.now();
  const result = (ok, reason) => ({
    name: session.name,
    ok,
    durationMs: Date.now() - started,
    reason,
    failureReport: log?.failureReport ?? [],
  });
  let prepared;
  let log;
  let server;
  let control;
  let context;
  let page;
  let profilePid;
  const stopIfInterrupted = () => {
    if (signal?.aborted) throw new Error('interrupted');
  };
  try {
    prepared = await prepareSession(session);
    trackDir(prepared.dirs.tmp);
    log = new SessionLog(session.name, join(prepared.artifactsDir, 'session.log'), verbose);
    log.write('runner', `session ${session.name}: ${session.description}; temp ${prepared.dirs.tmp}`, verbose);
    const env = { ...cleanEnv(), ...sessionEnv(session, prepared, { grep }) };

    let developmentPath = repoRoot;
    if (session.extension === 'vsix') {
      installVsix(prepared.dirs, env, log);
      developmentPath = writeHarnessExtension(prepared.dirs.harnessExtension);
    }

    stopIfInterrupted();
    server = startServer(prepared.dirs, env, log);
    const port = await server.listening;
    stopIfInterrupted();
    const url = workbenchUrl(port, prepared.workspace, developmentPath);
    log.write('runner', `workbench ${url}`, false);

    context = await chromium.launchPersistentContext(prepared.dirs.browser, {
      executablePath: chromiumPath,
      headless: true,
      args: BROWSER_ARGS,
      viewport: VIEWPORT,
      // The runner decides when the browser ends (after the session's cleanup), not Playwright.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    profilePid = browserPid(prepared.dirs.browser);
    log.write('runner', `browser started (pid ${profilePid})`, false);
    page = context.pages()[0] ?? (await context.newPage());
    stopIfInterrupted();

    let finish;
    const finished = new Promise((resolve) => (finish = resolve));
    let reloads = 0;
    let reloading = false;
    let lastNavigationAt = 0;
    const load = () =>
      page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 }).then(
        () => log.write('runner', 'workbench page loaded', false),
        (error) => finish({ ok: false, reason: `the workbench did not load: ${error.message}` }),
      );
    const reload = () => {
      reloads += 1;
      if (reloads > MAX_RELOADS) {
        finish({ ok: false, reason: `more than ${MAX_RELOADS} window reloads` });
        return;
      }
      log.write('runner', `reloading the window (reload ${reloads})`, true);
      reloading = true;
      log.quiet = true;
      void forgetWebviewWorkers(page, log)
        .then(load)
        .finally(() => {
          reloading = false;
          log.quiet = false;
        });
    };

    page.on('request', (request) => {
      if (request.isNavigationRequest() && request.frame() === page.mainFrame()) lastNavigationAt = Date.now();
    });
    await page.exposeFunction('codeAutomationLog', (level, args) => log.workbench(level, args));
    // The workbench also reports an exit when its extension host ends because the window is
    // reloading; that one is not the suite's result. So an exit counts only if no reload is
    // under way, no navigation started in the 3 s before it and none starts in the second after.
    await page.exposeFunction('codeAutomationExit', (code) => {
      const settle = () => {
        if (reloading || Date.now() - lastNavigationAt < 3000) {
          log.write('runner', `ignored exit code ${code} of the window that is reloading`, false);
          return;
        }
        const reason = code === 0 ? undefined : `the suite failed (exit code ${code})`;
        finish({ ok: code === 0, reason, ended: true });
      };
      if (reloading) settle();
      else setTimeout(settle, 1000);
    });
    page.on('crash', () => finish({ ok: false, reason: 'the workbench page crashed' }));
    page.on('pageerror', (error) => log.write('page:error', error.stack ?? error.message, false));
    page.on('console', (message) => {
      const url = message.location()?.url ?? '';
      if (!url.includes('/webview/')) return;
      log.write('webview', `${message.type()} ${message.text()} (${url.replace(/\?.*/, '')})`, false);
    });
    context.on('close', () => finish({ ok: false, reason: 'the browser closed' }));
    void server.exited.then((how) => finish({ ok: false, reason: `the VS Code server exited (${how})` }));
    signal?.addEventListener('abort', () => finish({ ok: false, reason: 'interrupted' }), { once: true });
    if (signal?.aborted) finish({ ok: false, reason: 'interrupted' });
    const timer = setTimeout(
      () => finish({ ok: false, reason: `timed out after ${session.timeoutSeconds} s`, timedOut: true }),
      session.timeoutSeconds * 1000 - (Date.now() - started),
    );

    const actions = runnerActions(session, prepared, page, reload, log);
    control = await startControlServer(prepared.dirs.control, actions, (action, args) =>
      log.write('runner', `suite asks: ${action} ${JSON.stringify(args)}`, verbose),
    );
    void load();
    const outcome = await finished;
    clearTimeout(timer);
    if (outcome.timedOut) {
      const shot = screenshotPath(session, 'timeout');
      await page
        .screenshot({ path: shot, timeout: 5000 })
        .then(() => {
          recordScreenshot(prepared, shot);
          log.write('runner', `screenshot at the timeout: ${shot}`, true);
        })
        .catch(() => {});
    }
    // A suite that ended has said why on stdout already; otherwise show what happened last.
    if (outcome.ended && !outcome.ok) log.write('runner', `full log: ${log.file}`, true, false);
    else if (!outcome.ok && outcome.reason !== 'interrupted') log.printTail(outcome.timedOut ? 40 : 25);
    return result(outcome.ok, outcome.reason);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (log && reason !== 'interrupted') log.printTail(25);
    return result(false, reason);
  } finally {
    await control?.close().catch(() => {});
    if (context) await withTimeout(context.close().catch(() => {}), 10_000);
    if (profilePid) await killTree(profilePid);
    if (server) await killTree(server.child.pid);
    if (prepared && !keep) rmSync(prepared.dirs.tmp, { recursive: true, force: true });
    else if (prepared) process.stdout.write(`[vscode:${session.name}] kept ${prepared.dirs.tmp}\n`);
  }
}
