// Mocha entry of the tests that run inside a VS Code extension host (bundled by esbuild.mjs to
// dist-test/vscode/index.js). VS Code calls run() after the window opens, under
// scripts/vscode/runVsCodeTests.mjs (offline: VS Code server + Chromium) or
// scripts/vscode/runWithTestElectron.mjs (desktop VS Code).
//
// Mocha UI: 'tdd' — suite(), test(), suiteSetup(), setup(), teardown(), suiteTeardown() — as
// in VS Code's own extension tests. Timeout 60 s per test.
//
// esbuild bundles one entry, so every test module is listed here, behind a require() that runs
// its body only when the session selects it: TASKLOOM_TEST_SUITES names them (comma-separated,
// from the session's `suites` in test/vscode/sessions.mjs); without it, 'smoke'.
// TASKLOOM_TEST_GREP keeps only the tests whose full title matches.
import Mocha from 'mocha';

const testModules: Record<string, () => unknown> = {
  smoke: () => require('./smoke.test'),
  harness: () => require('./harness.test'),
  untrusted: () => require('./untrusted.test'),
  runFlow: () => require('./runFlow.test'),
  resumeAfterReload: () => require('./resumeAfterReload.test'),
  conflictFlow: () => require('./conflictFlow.test'),
  pullRequestFlow: () => require('./pullRequestFlow.test'),
  extensionBench: () => require('./extensionBench.test'),
  problemsFlow: () => require('./problemsFlow.test'),
  insightsFlow: () => require('./insightsFlow.test'),
  transcriptFlow: () => require('./transcriptFlow.test'),
  planningRecovery: () => require('./planningRecovery.test'),
  actionsFlow: () => require('./actionsFlow.test'),
  takeOverFlow: () => require('./takeOverFlow.test'),
  candidatesFlow: () => require('./candidatesFlow.test'),
  notifyFlow: () => require('./notifyFlow.test'),
  issueFlow: () => require('./issueFlow.test'),
};

function selectedModules(): string[] {
  const names = (process.env.TASKLOOM_TEST_SUITES ?? 'smoke')
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !Object.hasOwn(testModules, n));
  if (unknown.length > 0) {
    throw new Error(`unknown test module(s) ${unknown.join(', ')}; known: ${Object.keys(testModules).join(', ')}`);
  }
  return names;
}

export function run(): Promise<void> {
  const mocha = new Mocha({
    ui: 'tdd',
    timeout: 60_000,
    color: false,
    reporter: 'spec',
    ...(process.env.TASKLOOM_TEST_GREP ? { grep: process.env.TASKLOOM_TEST_GREP } : {}),
  });
  return new Promise((resolve, reject) => {
    try {
      for (const name of selectedModules()) {
        // 'pre-require' installs the tdd globals the module's body calls.
        mocha.suite.emit('pre-require', globalThis, `test/vscode/suite/${name}.test.ts`, mocha);
        testModules[name]();
      }
      mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} test(s) failed`)) : resolve()));
    } catch (error) {
      reject(error);
    }
  });
}

// @vscode/test-cli (.vscode-test.mjs) loads this bundle as a plain mocha test file with its own
// runner, which has installed the globals already: register the modules right away.
if (typeof (globalThis as { suite?: unknown }).suite === 'function') {
  for (const name of selectedModules()) testModules[name]();
}
