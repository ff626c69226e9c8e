// The same sessions and suite as runVsCodeTests.mjs, in desktop VS Code through
// @vscode/test-electron, for machines that can download VS Code (it cannot be run offline;
// there use runVsCodeTests.mjs). Build first: `node esbuild.mjs`
// (and `npm run package` for the sessions that install the .vsix).
//
//   node scripts/vscode/runWithTestElectron.mjs [filter…] [--vscode-version 1.100.3]
//
// Differences from the offline runner: there is no browser around the window, so the runner
// controls of test/vscode/suite/runnerControl.ts are unavailable (runnerAvailable() is false:
// screenshots are skipped, the harness suite skips itself), and test-electron always passes
// --disable-workspace-trust, so sessions that turn workspace trust on are skipped.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { downloadAndUnzipVSCode, resolveCliArgsFromVSCodeExecutablePath, runTests } from '@vscode/test-electron';
import {
  cleanEnv,
  loadSessions,
  prepareSession,
  repoRoot,
  selectSessions,
  sessionEnv,
  suiteIndex,
  vsixPath,
  writeHarnessExtension,
} from './sessionSetup.mjs';

const { values: options, positionals: filters } = parseArgs({
  allowPositionals: true,
  options: { 'vscode-version': { type: 'string', default: '1.100.3' }, grep: { type: 'string' } },
});

if (!existsSync(suiteIndex)) {
  console.error(`${suiteIndex} is missing: run \`node esbuild.mjs\` first`);
  process.exit(1);
}

const vscodeExecutablePath = await downloadAndUnzipVSCode(options['vscode-version']);
const results = [];
for (const session of selectSessions(await loadSessions(), filters)) {
  if (session.settings['security.workspace.trust.enabled'] === true) {
    console.log(`skip ${session.name}: @vscode/test-electron always disables workspace trust`);
    continue;
  }
  const started = Date.now();
  const prepared = await prepareSession(session);
  const { dirs } = prepared;
  let ok = false;
  try {
    let extensionDevelopmentPath = repoRoot;
    if (session.extension === 'vsix') {
      if (!existsSync(vsixPath)) throw new Error(`${vsixPath} is missing: run \`npm run package\` first`);
      // reuseMachineInstall: no default profile arguments; the session's folders are passed instead.
      const [cli, ...cliArgs] = resolveCliArgsFromVSCodeExecutablePath(vscodeExecutablePath, {
        reuseMachineInstall: true,
      });
      const profile = ['--extensions-dir', dirs.extensions, '--user-data-dir', dirs.user];
      const install = spawnSync(cli, [...cliArgs, '--install-extension', vsixPath, '--force', ...profile], {
        encoding: 'utf8',
        stdio: 'inherit',
        shell: process.platform === 'win32',
        env: cleanEnv(),
      });
      if (install.status !== 0) throw new Error(`installing ${vsixPath} failed`);
      extensionDevelopmentPath = writeHarnessExtension(dirs.harnessExtension);
    }
    const code = await runTests({
      vscodeExecutablePath,
      extensionDevelopmentPath,
      extensionTestsPath: suiteIndex,
      // Our own user data (with the session's settings.json) and extensions folders.
      launchArgs: [
        prepared.workspace,
        ...['--user-data-dir', dirs.user, '--extensions-dir', dirs.extensions, '--disable-gpu'],
      ],
      extensionTestsEnv: sessionEnv(session, prepared, { grep: options.grep }),
    });
    ok = code === 0;
  } catch (error) {
    console.error(`${session.name}: ${error instanceof Error ? error.message : error}`);
  } finally {
    rmSync(dirs.tmp, { recursive: true, force: true });
  }
  results.push({ name: session.name, ok, seconds: (Date.now() - started) / 1000 });
}

for (const r of results) console.log(`  ${r.ok ? 'pass' : 'FAIL'}  ${r.name.padEnd(14)} ${r.seconds.toFixed(1)} s`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
