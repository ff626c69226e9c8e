// Type-checks and lints the project (full runs only), then runs every test file under test/ with Node's own
// runner (TypeScript is loaded through tsx), then the suites that run inside a real VS Code (test/vscode, through
// scripts/vscode/runVsCodeTests.mjs), installing Chromium and the VS Code server first when
// they are missing (scripts/vscode/installServer.sh).
// Arguments filter both: `npm test -- storeLock` runs the node:test files whose path contains
// "storeLock" and the VS Code sessions whose name or suite file contains it (none here);
// `npm test -- vscode` runs only the VS Code sessions. TASKLOOM_SKIP_VSCODE_TESTS=1 skips them.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join, relative } from 'node:path';
import { assertPrerequisites } from './vscode/prerequisites.mjs';

const root = join(import.meta.dirname, '..');
const only = process.argv.slice(2);
// test/vscode runs inside the extension host (mocha), not under node:test; its fixtures hold
// a sample project's own tests.
const vscodeTests = join(root, 'test', 'vscode');

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) return p === vscodeTests ? [] : testFiles(p);
    return entry.name.endsWith('.test.ts') ? [relative(root, p)] : [];
  });
}

// Tests must never write the real per-user record of created runs (see test/helpers/testStateDir.ts).
process.env.TASKLOOM_STATE_DIR ||= join(tmpdir(), `taskloom-test-state-${userInfo().uid}`);

const files = testFiles(join(root, 'test')).filter((f) => only.length === 0 || only.some((o) => f.includes(o)));
// Runs are confined by bubblewrap, and the confinement tests fail without it: on a fresh Debian
// machine as root it is installed first, as the VS Code sessions' Chromium is; elsewhere, say so.
if (files.length > 0 && spawnSync('sh', ['-c', 'command -v bwrap'], { stdio: 'ignore' }).status !== 0) {
  const asRoot = process.getuid?.() === 0 && spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;
  if (asRoot) {
    console.log('taskloom: installing bubblewrap, which confines runs (apt-get install bubblewrap)…');
    spawnSync('sh', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null'], { stdio: 'inherit' });
  } else {
    console.log('taskloom: bubblewrap (bwrap) is not installed, so the confinement tests will fail: install it (sudo apt-get install bubblewrap)');
  }
}
let failed = false;
// tsx and esbuild strip types without checking them: a full run type-checks first (both projects).
if (only.length === 0) {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  for (const project of ['.', join('src', 'webview')]) {
    const check = spawnSync(process.execPath, [tsc, '-p', project, '--noEmit'], { cwd: root, stdio: 'inherit' });
    if (check.status !== 0) console.log(`typecheck failed: tsc -p ${project}`);
    failed ||= check.status !== 0;
  }
  // The architecture's import rules are lint rules (eslint.config.mjs).
  const lint = spawnSync(process.execPath, [join(root, 'node_modules', 'eslint', 'bin', 'eslint.js'), 'src', 'test', 'bench'], { cwd: root, stdio: 'inherit' });
  if (lint.status !== 0) console.log('lint failed: eslint src test bench');
  failed ||= lint.status !== 0;
}
// With filters that match no file, skip the run: `node --test` without files would go looking for tests itself.
if (files.length > 0) {
  const node = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
    { cwd: root, stdio: 'inherit' },
  );
  failed ||= node.status !== 0;
}

if (process.env.TASKLOOM_SKIP_VSCODE_TESTS === '1') {
  console.log('VS Code tests skipped (TASKLOOM_SKIP_VSCODE_TESTS=1)');
} else {
  // A fresh machine: install Chromium and the VS Code server first (idempotent, cached in ~/.cache/taskloom).
  try {
    assertPrerequisites();
  } catch {
    console.log('taskloom: installing what the VS Code tests need (scripts/vscode/installServer.sh)…');
    spawnSync('bash', [join('scripts', 'vscode', 'installServer.sh')], { cwd: root, stdio: 'inherit' });
  }
  const vscode = spawnSync(process.execPath, [join('scripts', 'vscode', 'runVsCodeTests.mjs'), ...only], {
    cwd: root,
    stdio: 'inherit',
  });
  failed ||= vscode.status !== 0;
}
process.exit(failed ? 1 : 0);
