// Makes `npm test` and `npm run demo` work on a fresh clone: install when node_modules is
// missing or older than the lock file, and build when dist/ is missing or older than src/.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const mtime = (p) => (existsSync(p) ? statSync(p).mtimeMs : 0);

function newestIn(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestIn(p) : statSync(p).mtimeMs);
  }
  return newest;
}

const run = (cmd) => execSync(cmd, { cwd: root, stdio: 'inherit' });

if (mtime(join(root, 'node_modules/.package-lock.json')) < mtime(join(root, 'package-lock.json'))) {
  console.log('taskloom: installing dependencies (npm ci)…');
  run('npm ci --no-audit --no-fund');
}
const builtAt = mtime(join(root, 'dist/cli.js'));
if (builtAt < Math.max(newestIn(join(root, 'src')), mtime(join(root, 'esbuild.mjs')))) {
  console.log('taskloom: building…');
  run('node esbuild.mjs');
}
