import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

/** What the .vsix ships stays small: the production build prints its bundles' total, and it is at most 3.2 MB (esbuild.mjs says why). */

const repoRoot = join(import.meta.dirname, '..', '..');
const out = mkdtempSync(join(tmpdir(), 'taskloom-bundles-'));
after(() => rmSync(out, { recursive: true, force: true }));

const LIMIT_BYTES = 3_200_000;

function jsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return jsFiles(path);
    return entry.name.endsWith('.js') ? [path] : [];
  });
}

describe('the production bundles', () => {
  it('total at most 3.2 MB, and the build prints that total truthfully', () => {
    const build = spawnSync(process.execPath, ['esbuild.mjs', '--production', '--out', out], { cwd: repoRoot, encoding: 'utf8' });
    assert.equal(build.status, 0, build.stderr);
    const printed = /taskloom bundles: (\d+) KB in all/.exec(build.stdout);
    assert.ok(printed, `the build prints the total: ${build.stdout}`);
    const onDisk = jsFiles(join(out, 'dist')).reduce((sum, file) => sum + statSync(file).size, 0);
    assert.equal(Number(printed[1]), Math.round(onDisk / 1000));
    assert.ok(onDisk <= LIMIT_BYTES, `the bundles total ${onDisk} bytes, over ${LIMIT_BYTES}`);
  });
});
