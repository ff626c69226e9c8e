import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { leavingNoTrace, recordCheckout, returnCheckout } from '../../src/engine/workspace/leavingNoTrace';
import { scratchFolder, tempRepos } from '../helpers/fileScoped';
import type { TempRepo } from '../helpers/tempRepo';

// The module on real repositories: what a "gate" (here, the test writing as a gate would) leaves
// after leavingNoTrace, and what it must not touch.

const repo = tempRepos();
const outside = scratchFolder('outside-checkout');

const put = (r: TempRepo, path: string, text: string): void => {
  mkdirSync(join(r.dir, path, '..'), { recursive: true });
  writeFileSync(join(r.dir, path), text);
};
const read = (r: TempRepo, path: string): string => readFileSync(join(r.dir, path), 'utf8');
const status = (r: TempRepo): string => r.git(['status', '--porcelain', '--ignored']);

describe('leavingNoTrace', () => {
  it('puts back tracked files and removes what the gate made, keeping what was there before (setup\'s node_modules, an ignored .env)', async () => {
    const r = repo({ 'pkg/mod.py': 'x = 1\n', 'pkg/other.py': 'y = 2\n', 'a*b.txt': 'star\n', '.gitignore': '.env\n' });
    put(r, 'node_modules/dep/index.js', 'module.exports = 1;\n');
    put(r, '.env', 'SECRET=1\n');
    const before = status(r);
    const outcome = await returnAfter(r, async () => {
      put(r, 'pkg/__pycache__/mod.cpython-311.pyc', 'bytecode');
      put(r, '.pytest_cache/v/cache/lastfailed', '{}');
      put(r, 'coverage/lcov.info', 'TN:\n');
      mkdirSync(join(r.dir, 'empty-folder'));
      put(r, 'pkg/mod.py', 'x = 2  # reformatted\n');
      put(r, 'a*b.txt', 'rewritten\n');
      unlinkSync(join(r.dir, 'pkg/other.py'));
      put(r, 'staged.txt', 'the gate staged me\n');
      r.git(['add', 'staged.txt']);
      put(r, 'node_modules/.cache/babel.json', '{}');
    });
    assert.equal(status(r), before, 'git sees the checkout exactly as before the gate');
    assert.equal(read(r, 'pkg/mod.py'), 'x = 1\n');
    assert.equal(read(r, 'pkg/other.py'), 'y = 2\n');
    assert.equal(read(r, 'a*b.txt'), 'star\n');
    assert.equal(read(r, '.env'), 'SECRET=1\n');
    assert.ok(existsSync(join(r.dir, 'node_modules/dep/index.js')), 'what setup installed stays');
    assert.ok(existsSync(join(r.dir, 'node_modules/.cache/babel.json')), 'inside a folder that was there before, the gate\'s writes stay too');
    assert.deepEqual(outcome.restored.sort(), ['a*b.txt', 'pkg/mod.py', 'pkg/other.py', 'staged.txt']);
    assert.deepEqual(outcome.removed.sort(), ['.pytest_cache/', 'coverage/', 'empty-folder/', 'pkg/__pycache__/', 'staged.txt']);
    assert.deepEqual(outcome.kept, []);
  });

  it('keeps what keepOutputs names, as the gate wrote it, tracked or new, and nothing beside it; paths go to git as they are, never as pathspec magic', async () => {
    const r = repo({ 'snap/app.snap': 'old\n', ':!x.txt': 'odd name\n', 'acb.txt': 'c\n' });
    const outcome = await returnAfter(
      r,
      async () => {
        put(r, 'snap/app.snap', 'updated\n');
        put(r, 'acb.txt', 'kept\n');
        put(r, ':!x.txt', 'undone\n');
        put(r, 'reports/junit.xml', '<testsuites/>');
        put(r, 'reports/raw/run.log', 'noise');
        put(r, 'generated/types.ts', 'export type T = 1;\n');
      },
      ['snap', 'acb.txt', 'reports/*.xml', 'generated/'],
    );
    assert.equal(read(r, 'snap/app.snap'), 'updated\n', 'a tracked file in a folder the setting names keeps the gate\'s change');
    assert.equal(read(r, 'acb.txt'), 'kept\n', 'restoring `:!x.txt` is not pathspec magic (everything but x.txt) that takes acb.txt with it');
    assert.equal(read(r, ':!x.txt'), 'odd name\n');
    assert.equal(read(r, 'reports/junit.xml'), '<testsuites/>');
    assert.equal(existsSync(join(r.dir, 'reports/raw')), false, 'what the setting does not name, in the same new folder, goes');
    assert.equal(read(r, 'generated/types.ts'), 'export type T = 1;\n', 'a folder named is kept whole');
    assert.deepEqual(outcome.kept.sort(), ['acb.txt', 'generated', 'reports/junit.xml', 'snap/app.snap']);
    r.git(['add', '-A']);
    assert.deepEqual(r.git(['diff', '--cached', '--name-only']).split('\n').sort(), ['acb.txt', 'generated/types.ts', 'reports/junit.xml', 'snap/app.snap'], 'the next commit takes exactly the kept outputs');
  });

  it('removes links the gate made without following them out of the checkout', async () => {
    const r = repo({ 'README.md': '# x\n' });
    const target = join(outside.dir, 'precious');
    mkdirSync(target, { recursive: true });
    writeFileSync(join(target, 'data.txt'), 'not the checkout\'s\n');
    await returnAfter(r, async () => {
      symlinkSync(target, join(r.dir, 'link-out'));
      mkdirSync(join(r.dir, 'out'));
      symlinkSync(target, join(r.dir, 'out', 'nested-link'));
    }, ['out/nested-link/**']);
    assert.equal(existsSync(join(r.dir, 'link-out')), false);
    assert.equal(existsSync(join(r.dir, 'out')), false, 'a pattern reaching through a link keeps nothing: the link is not a folder of the checkout');
    assert.equal(readFileSync(join(target, 'data.txt'), 'utf8'), 'not the checkout\'s\n', 'the folder outside is untouched');
  });

  it('leaves alone tracked changes that were there before the gate: only the gate\'s own are undone', async () => {
    const r = repo({ 'work.txt': 'committed\n', 'other.txt': 'committed\n' });
    put(r, 'work.txt', 'not yet committed\n');
    await returnAfter(r, async () => {
      put(r, 'work.txt', 'the gate again\n');
      put(r, 'other.txt', 'the gate\n');
    });
    assert.equal(read(r, 'work.txt'), 'the gate again\n', 'a change the checkout already had is not the gate\'s to undo (nor can it be told apart)');
    assert.equal(read(r, 'other.txt'), 'committed\n');
  });

  it('moves the branch back when the gate committed, and undoes what it committed', async () => {
    const r = repo({ 'a.txt': 'a\n' });
    const head = r.git(['rev-parse', 'HEAD']);
    await returnAfter(r, async () => {
      put(r, 'a.txt', 'gate\n');
      put(r, 'b.txt', 'gate\n');
      r.git(['add', '-A']);
      r.git(['commit', '-q', '-m', 'the gate committed']);
    });
    assert.equal(r.git(['rev-parse', 'HEAD']), head);
    assert.equal(status(r), '');
    assert.equal(read(r, 'a.txt'), 'a\n');
  });

  it('puts the checkout back when the gate throws, and the gate\'s error is what the caller gets', async () => {
    const r = repo({ 'a.txt': 'a\n' });
    await assert.rejects(
      leavingNoTrace(r.dir, [], async () => {
        put(r, 'a.txt', 'half-written');
        put(r, 'tmp/partial', 'x');
        throw new Error('the gate broke');
      }),
      /the gate broke/,
    );
    assert.equal(status(r), '');
  });

  it('a gate killed with its engine is cleaned up after by the next gate in the checkout, unless work was committed since', async () => {
    const r = repo({ 'a.txt': 'a\n' });
    await killedMidGate(r);
    assert.ok(existsSync(join(r.dir, 'pkg/__pycache__/m.pyc')), 'the killed gate left its by-products');
    await leavingNoTrace(r.dir, [], async () => undefined);
    assert.equal(status(r), '', 'the next gate put the checkout back as the killed one found it');
    assert.equal(read(r, 'a.txt'), 'a\n');

    await killedMidGate(r);
    r.git(['add', 'a.txt']);
    r.git(['commit', '-q', '-m', 'work committed since']);
    await leavingNoTrace(r.dir, [], async () => undefined);
    assert.equal(read(r, 'a.txt'), 'the gate\n', 'a commit made since is not undone: the old record no longer describes the checkout');
    assert.equal(r.git(['log', '-1', '--format=%s']), 'work committed since');
  });

  it('answers what the gate answered; a folder that is no checkout is refused before the gate runs', async () => {
    const r = repo();
    assert.equal(await leavingNoTrace(r.dir, [], async () => 'gate result'), 'gate result');
    let ran = false;
    await assert.rejects(leavingNoTrace(outside.dir, [], async () => (ran = true)));
    assert.equal(ran, false);
  });
});

/** A real process runs a gate in `r` through leavingNoTrace and is killed (SIGKILL) while its gate runs, after it wrote by-products. */
async function killedMidGate(r: TempRepo): Promise<void> {
  const marker = join(outside.dir, `gate-running-${Date.now()}`);
  const script = outside.write(
    'killed-gate.ts',
    `import { mkdirSync, writeFileSync } from 'node:fs';
import { leavingNoTrace } from ${JSON.stringify(join(__dirname, '../../src/engine/workspace/leavingNoTrace'))};
const dir = ${JSON.stringify(r.dir)};
void leavingNoTrace(dir, [], async () => {
  mkdirSync(dir + '/pkg/__pycache__', { recursive: true });
  writeFileSync(dir + '/pkg/__pycache__/m.pyc', 'bytecode');
  writeFileSync(dir + '/a.txt', 'the gate\\n');
  writeFileSync(${JSON.stringify(marker)}, 'running');
  await new Promise(() => setInterval(() => undefined, 1000));
});
`,
  );
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: join(__dirname, '../..'), stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  for (const deadline = Date.now() + 60_000; !existsSync(marker); ) {
    assert.ok(Date.now() < deadline && child.exitCode === null, 'the gate process never reached its gate');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  await exited;
}

/** Records `r`, runs `gate` and returns the checkout, as leavingNoTrace does, answering what it did. */
async function returnAfter(r: TempRepo, gate: () => Promise<void>, keep: string[] = []) {
  const record = await recordCheckout(r.dir);
  await gate();
  return returnCheckout(record, keep);
}
