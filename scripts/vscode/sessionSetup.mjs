// What every in-VS-Code test session needs before a window opens, shared by the offline runner
// (runVsCodeTests.mjs: VS Code server + Chromium) and the desktop one (runWithTestElectron.mjs):
// the session list and its filter, a fresh temp folder with user settings and the workspace,
// the artifacts folder, and the environment the extension host (and so the suite) sees.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const repoRoot = join(import.meta.dirname, '..', '..');
export const artifactsRoot = join(repoRoot, 'test-artifacts');
export const screenshotsDir = join(artifactsRoot, 'screenshots');
/** The mocha entry bundled by esbuild.mjs from test/vscode/suite/index.ts. */
export const suiteIndex = join(repoRoot, 'dist-test', 'vscode', 'index.js');
/** In a session's artifacts folder: the screenshots it took (they live in screenshotsDir). */
export const SCREENSHOT_LIST = 'screenshots.txt';
/** Output of `npm run package`. */
export const vsixPath = join(repoRoot, 'taskloom.vsix');

/** The extension id, publisher.name from package.json. */
export const EXTENSION_ID = 'taskloom.taskloom';

// Settings of every session; a session's own `settings` override them. A test window should
// open straight onto the workspace: no trust prompt, no welcome page, no network look-ups.
export const DEFAULT_SETTINGS = {
  'security.workspace.trust.enabled': false,
  'security.workspace.trust.startupPrompt': 'never',
  'security.workspace.trust.emptyWindow': false,
  'workbench.startupEditor': 'none',
  'window.confirmBeforeClose': 'never',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'update.mode': 'none',
  'telemetry.telemetryLevel': 'off',
  'git.openRepositoryInParentFolders': 'never',
};

export async function loadSessions() {
  const { sessions } = await import(pathToFileURL(join(repoRoot, 'test', 'vscode', 'sessions.mjs')).href);
  const names = new Set();
  return sessions.map((s) => {
    if (names.has(s.name)) throw new Error(`test/vscode/sessions.mjs: two sessions are named ${s.name}`);
    names.add(s.name);
    if (!['development', 'vsix'].includes(s.extension ?? 'development')) {
      throw new Error(`session ${s.name}: extension must be 'development' or 'vsix', not ${s.extension}`);
    }
    return {
      description: '',
      extension: 'development',
      suites: [s.name],
      settings: {},
      env: {},
      timeoutSeconds: 300,
      workspace: (root) => root,
      ...s,
    };
  });
}

/**
 * The sessions a list of filters selects (all of them when there are none): a filter matches
 * a session when it is part of its name, of `vscode:<name>`, or of one of its suites' file
 * paths (test/vscode/suite/<suite>.test.ts) — so `npm test -- smoke` or `npm test -- vscode`
 * pick VS Code sessions the same way they pick node:test files.
 */
export function selectSessions(sessions, filters) {
  // A session marked `onlyWhenNamed` (the benchmark) runs only when a filter selects it.
  if (filters.length === 0) return sessions.filter((s) => !s.onlyWhenNamed);
  return sessions.filter((s) => {
    const haystacks = [`vscode:${s.name}`, ...s.suites.map((suite) => `test/vscode/suite/${suite}.test.ts`)];
    return filters.some((f) => haystacks.some((h) => h.includes(f)));
  });
}

/**
 * A fresh temp folder for the session with user settings written, its workspace made and its
 * artifacts folder emptied. `tmp` holds server/ (server data), user/ (user data: User/settings.json),
 * ext/ (extensions dir), browser/ (Chromium profile), control/ (runner ⇄ suite), tmp/ (the TMPDIR
 * of the server and the extension host, so their sockets and temp files go with the session) and
 * workspaces/, the empty folder handed to the session's workspace() to make the folder the window opens.
 */
export async function prepareSession(session) {
  const tmp = mkdtempSync(join(tmpdir(), `taskloom-vscode-${session.name}-`));
  const dirs = {
    tmp,
    server: join(tmp, 'server'),
    user: join(tmp, 'user'),
    extensions: join(tmp, 'ext'),
    browser: join(tmp, 'browser'),
    control: join(tmp, 'control'),
    temp: join(tmp, 'tmp'),
    harnessExtension: join(tmp, 'harness-extension'),
  };
  for (const d of [dirs.server, join(dirs.user, 'User'), dirs.extensions, dirs.browser, dirs.control, dirs.temp]) {
    mkdirSync(d, { recursive: true });
  }
  // User settings, not server data's Machine/settings.json: the browser reads application-scoped
  // settings such as security.workspace.trust.enabled only from here.
  const settings = { ...DEFAULT_SETTINGS, ...session.settings };
  writeFileSync(join(dirs.user, 'User', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);

  // Screenshots and artifacts of the session's previous run go; other sessions' stay.
  const artifactsDir = join(artifactsRoot, 'vscode', session.name);
  const previousShots = join(artifactsDir, SCREENSHOT_LIST);
  if (existsSync(previousShots)) {
    for (const shot of readFileSync(previousShots, 'utf8').split('\n').filter(Boolean)) rmSync(shot, { force: true });
  }
  rmSync(artifactsDir, { recursive: true, force: true });
  mkdirSync(artifactsDir, { recursive: true });
  mkdirSync(screenshotsDir, { recursive: true });

  const workspaces = join(tmp, 'workspaces');
  mkdirSync(workspaces);
  // A workspace may add user settings it only knows once made (a scripted server's URL), as a user would.
  const addUserSettings = (more) => writeFileSync(join(dirs.user, 'User', 'settings.json'), `${JSON.stringify(Object.assign(settings, more), null, 2)}\n`);
  const workspace = await session.workspace(workspaces, { repoRoot, tmp, artifactsDir, addUserSettings });
  if (typeof workspace !== 'string' || !existsSync(workspace)) {
    throw new Error(`session ${session.name}: workspace() must return the folder it made (got ${workspace})`);
  }
  return { dirs, workspace, artifactsDir, settings };
}

/**
 * A minimal extension to take the development slot when the real one is installed from the
 * .vsix: VS Code runs the suite only for a window with an extension under development, and this
 * one must not shadow the installed extension, so it has its own id and no code.
 */
export function writeHarnessExtension(dir) {
  mkdirSync(dir, { recursive: true });
  const manifest = {
    name: 'taskloom-test-harness',
    publisher: 'taskloom-test',
    version: '0.0.0',
    description: 'Stands in as the extension under development while the tests use the installed Taskloom.',
    engines: { vscode: '*' },
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return dir;
}

/**
 * The extension host's environment additions (it inherits the server's environment). The offline
 * runner starts the server with them too, so TMPDIR also takes the server's sockets.
 */
export function sessionEnv(session, prepared, { grep } = {}) {
  return {
    TMPDIR: prepared.dirs.temp,
    TASKLOOM_TEST_SESSION: session.name,
    TASKLOOM_TEST_SUITES: session.suites.join(','),
    ...(grep ? { TASKLOOM_TEST_GREP: grep } : {}),
    TASKLOOM_TEST_ARTIFACTS: prepared.artifactsDir,
    TASKLOOM_TEST_SCREENSHOTS: screenshotsDir,
    TASKLOOM_TEST_CONTROL_DIR: prepared.dirs.control,
    TASKLOOM_TEST_WORKSPACE: prepared.workspace,
    TASKLOOM_TEST_REPO_ROOT: repoRoot,
    TASKLOOM_TEST_EXTENSION_SOURCE: session.extension,
    TASKLOOM_TEST_EXTENSIONS_DIR: prepared.dirs.extensions,
    ...(typeof session.env === 'function' ? session.env({ tmp: prepared.dirs.tmp }) : session.env),
  };
}

/**
 * The runner's environment without what would confuse a nested VS Code (e.g. run from its
 * terminal), and with the per-user record of created runs in a test folder, so the engines of
 * the sessions never write the real one (~/.local/state/taskloom).
 */
export function cleanEnv() {
  const inherited = /^(VSCODE_|ELECTRON_RUN_AS_NODE$|ELECTRON_NO_ATTACH_CONSOLE$)/;
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !inherited.test(k)));
  env.TASKLOOM_STATE_DIR ||= join(tmpdir(), `taskloom-test-state-${userInfo().uid}`);
  return env;
}
