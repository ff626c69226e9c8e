// Configuration for @vscode/test-cli (`npx vscode-test`, and the Extension Test Runner in VS
// Code) on machines that can download VS Code; offline, use `npm run test:vscode` instead.
// @vscode/test-cli is not a dependency (0.0.15 declares Node >= 22): install it where wanted.
// Build first: `node esbuild.mjs`.
//
// The same suite as the other runners: test-cli's mocha loads the bundled entry
// dist-test/vscode/index.js as a test file, which registers the modules TASKLOOM_TEST_SUITES
// names. One configuration per development session of test/vscode/sessions.mjs, each with a
// fresh workspace and its user settings; sessions that install the .vsix or turn workspace
// trust on need scripts/vscode/runWithTestElectron.mjs or the offline runner.
import { loadSessions, prepareSession, repoRoot, sessionEnv } from './scripts/vscode/sessionSetup.mjs';

const sessions = (await loadSessions()).filter(
  (s) => s.extension === 'development' && s.settings['security.workspace.trust.enabled'] !== true,
);

export default await Promise.all(
  sessions.map(async (session) => {
    const prepared = await prepareSession(session);
    return {
      label: session.name,
      files: 'dist-test/vscode/index.js',
      extensionDevelopmentPath: repoRoot,
      workspaceFolder: prepared.workspace,
      launchArgs: ['--user-data-dir', prepared.dirs.user, '--extensions-dir', prepared.dirs.extensions],
      env: sessionEnv(session, prepared),
      mocha: { ui: 'tdd', timeout: 60_000 },
    };
  }),
);
