// Runs the mocha suites of test/vscode/suite inside a real VS Code extension host, offline:
// the VS Code 1.100 server + Debian's Chromium (browserSession.mjs), one window per session of
// test/vscode/sessions.mjs. Needs `bash scripts/vscode/installServer.sh` once.
//
//   node scripts/vscode/runVsCodeTests.mjs [filter…] [--session <name>…] [--grep <mocha grep>] [--list]
//        [--no-build] [--keep] [--verbose]
//
// filter   substrings of session names or suite files (as `npm test -- <filter>`); none = all
// --session <name>  exactly this session (repeatable; combined with the filters)
// --grep   only the tests whose full title matches (mocha grep, in every selected session)
// --no-build  use dist/, dist-test/ and taskloom.vsix as they are; by default the runner first
//          packages the .vsix (`npm run package`, when a selected session installs it and the
//          .vsix is older than its sources) and then builds the development bundles
//          (`node esbuild.mjs`) — in this order, since the
//          production build of the package also writes dist/
// --keep   keep each session's temp folder (server data, user data, workspace) and print it
// --verbose  print the whole workbench and server log, not only the suite's and extension's
//
// Per session the runner writes test-artifacts/vscode/<session>/session.log (everything) and
// the suite's screenshots to test-artifacts/screenshots/<session>-<name>.png. It exits 1 when a
// session fails, and ends every server, browser and process they started, also on Ctrl-C.
//
// What the suite sees (environment of the extension host, which inherits the server's):
//   TASKLOOM_TEST_SESSION         the session's name
//   TASKLOOM_TEST_SUITES          comma-separated test modules to run (suite/index.ts)
//   TASKLOOM_TEST_GREP            mocha grep, when given
//   TASKLOOM_TEST_ARTIFACTS       test-artifacts/vscode/<session>/, kept after the run
//   TASKLOOM_TEST_SCREENSHOTS     test-artifacts/screenshots/
//   TASKLOOM_TEST_CONTROL_DIR     the runner ⇄ suite folder (below)
//   TASKLOOM_TEST_WORKSPACE       the workspace folder the window opened
//   TASKLOOM_TEST_REPO_ROOT       this repository
//   TASKLOOM_TEST_EXTENSION_SOURCE  'development' or 'vsix'
//   TASKLOOM_TEST_EXTENSIONS_DIR  the server's extensions folder (where the .vsix is installed)
//
// Runner ⇄ suite controls. The suite calls helpers from test/vscode/suite/runnerControl.ts (and
// screenshot.ts); they POST to an HTTP server the runner keeps on a Unix socket,
// $TASKLOOM_TEST_CONTROL_DIR/runner.sock (controlServer.mjs), and resolve when the runner has
// done it:
//   takeScreenshot(name)        page.screenshot() → test-artifacts/screenshots/<session>-<name>.png
//   runPaletteCommand(title)    F1, type the title, click the entry labelled exactly so
//   typeText(text), pressKey(key)   the keyboard, e.g. answering a showInputBox
//   click(target), waitFor(target), readTexts(target), selectOption(target + value)   a Playwright selector, optionally
//                               inside iframes (`frames`, outermost first; WEBVIEW_FRAMES for a
//                               webview's content); click(target + button: 'right') opens a context menu
//   reloadWindow()              a real window reload, as Developer: Reload Window
// A reload restarts the extension host, and VS Code then runs the whole suite again from run().
// So a suite that spans a reload reads its phase: reloadWindow() first writes phase N+1 to
// $TASKLOOM_TEST_CONTROL_DIR/phase, then asks the runner to reload the page and never returns;
// in the new extension host testPhase() is N+1 and the test module registers the tests of that
// phase (see suite/harness.test.ts). Phase 1 ends at the reload; only the last phase's result
// (codeAutomationExit) decides the session. At most 10 reloads per session.
// Without the runner (desktop VS Code via runWithTestElectron.mjs) the helpers are unavailable:
// runnerAvailable() is false, takeScreenshot() logs and skips, the others throw.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runBrowserSession } from './browserSession.mjs';
import { assertPrerequisites } from './prerequisites.mjs';
import { killDescendantsNow } from './processTree.mjs';
import { loadSessions, repoRoot, selectSessions, vsixPath } from './sessionSetup.mjs';

const { values: options, positionals: filters } = parseArgs({
  allowPositionals: true,
  options: {
    grep: { type: 'string' },
    session: { type: 'string', multiple: true, default: [] },
    list: { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
  },
});

// A closed stdout (runner piped into `head`) must not kill the runner before it cleans up.
process.stdout.on('error', () => {});

const known = await loadSessions();
const unknownNames = options.session.filter((n) => !known.some((s) => s.name === n));
if (unknownNames.length > 0) {
  console.error(`vscode: no session named ${unknownNames.join(', ')} (known: ${known.map((s) => s.name).join(', ')})`);
  process.exit(1);
}
// A session named with --session runs even when it runs only when named (the benchmark).
const candidates = filters.length === 0 && options.session.length > 0 ? known : selectSessions(known, filters);
const sessions = candidates.filter((s) => options.session.length === 0 || options.session.includes(s.name));
if (options.list) {
  for (const s of sessions) console.log(`${s.name.padEnd(14)} ${s.extension.padEnd(11)} ${s.description}`);
  process.exit(0);
}
if (sessions.length === 0) {
  console.log(`vscode: no session matches ${filters.join(' ')}`);
  process.exit(0);
}
try {
  assertPrerequisites();
} catch (error) {
  console.error(`vscode: ${error.message}`);
  process.exit(1);
}

function run(command, args) {
  const result = spawnSync(command, args, { cwd: repoRoot, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`vscode: \`${[command, ...args].join(' ')}\` failed`);
    process.exit(1);
  }
}

// What taskloom.vsix is made from: when none of it changed since the last package, a second
// run skips `npm run package` (its production build and vsce take most of the build time).
const PACKAGE_INPUTS = [
  'src',
  'media',
  'package.json',
  'package-lock.json',
  'README.md',
  'LICENSE',
  '.vscodeignore',
  'esbuild.mjs',
];

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestMtime(join(path, name))));
}

function vsixIsStale() {
  if (!existsSync(vsixPath)) return true;
  return Math.max(...PACKAGE_INPUTS.map((p) => newestMtime(join(repoRoot, p)))) > statSync(vsixPath).mtimeMs;
}

if (!options['no-build']) {
  const buildStarted = Date.now();
  if (sessions.some((s) => s.extension === 'vsix')) {
    if (vsixIsStale()) run('npm', ['run', '--silent', 'package']);
    else console.log('vscode: taskloom.vsix is up to date');
  }
  run(process.execPath, ['esbuild.mjs']);
  console.log(`vscode: built in ${((Date.now() - buildStarted) / 1000).toFixed(1)} s`);
}

// Everything a session starts is ended by the session itself; these are for the ways out that
// skip it (an exception, a second Ctrl-C): kill what is left of our process tree, synchronously.
const tempDirs = new Set();
process.on('exit', () => {
  killDescendantsNow(process.pid);
  if (!options.keep) for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});
const interrupt = new AbortController();
let signals = 0;
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    signals += 1;
    if (signals > 1) process.exit(130); // the 'exit' handler still kills the tree
    console.log(`\nvscode: ${sig}: stopping the session and cleaning up (again to force)`);
    interrupt.abort();
  });
}

const results = [];
for (const session of sessions) {
  if (interrupt.signal.aborted) break;
  console.log(`vscode: session ${session.name} (${session.extension}): ${session.description}`);
  results.push(
    await runBrowserSession(session, {
      grep: options.grep,
      verbose: options.verbose,
      keep: options.keep,
      signal: interrupt.signal,
      trackDir: (dir) => tempDirs.add(dir),
    }),
  );
}

console.log('\nvscode sessions:');
for (const r of results) {
  const mark = r.ok ? 'pass' : 'FAIL';
  const seconds = (r.durationMs / 1000).toFixed(1).padStart(6);
  console.log(`  ${mark}  ${r.name.padEnd(14)} ${seconds} s${r.ok ? '' : `  ${r.reason}`}`);
}
// Repeated last, so that a CI log's tail says which test failed and why.
for (const r of results.filter((x) => !x.ok && x.failureReport.length)) {
  console.log(`\n${r.name}:`);
  for (const line of r.failureReport) console.log(`  ${line}`);
}
const failed = results.filter((r) => !r.ok).length + (sessions.length - results.length);
if (interrupt.signal.aborted) process.exit(130);
process.exit(failed > 0 ? 1 : 0);
