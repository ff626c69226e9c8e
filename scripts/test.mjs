// Runs every test file under test/ with Node's own runner; TypeScript is loaded through tsx.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const only = process.argv.slice(2);

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(p);
    return entry.name.endsWith('.test.ts') ? [relative(root, p)] : [];
  });
}

const files = testFiles(join(root, 'test')).filter((f) => only.length === 0 || only.some((o) => f.includes(o)));
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
  { cwd: root, stdio: 'inherit' },
);
process.exit(result.status ?? 1);
