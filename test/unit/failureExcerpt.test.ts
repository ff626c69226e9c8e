import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { failureExcerpt } from '../../src/engine/gate/failureExcerpt';

/**
 * The excerpt of a failed gate keeps the failure — the failing test's name and its assertion —
 * however long the output, for the runners people use: node:test (TAP and spec) and pytest run
 * for real here; the others' documented output is in test/fixtures/gate-output.
 */

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'taskloom-excerpt-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const run = (cwd: string, command: string, args: string[]) => {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, NODE_TEST_CONTEXT: undefined, NO_COLOR: '1' } });
  return `${r.stdout}${r.stderr}`;
};

/** 60 passing tests around one failing one: its name is far from both ends of the output. */
const NODE_TESTS = [
  "const test = require('node:test');",
  "const assert = require('node:assert');",
  ...Array.from({ length: 30 }, (_, i) => `test('passes ${i}', () => assert.ok(true));`),
  "test('greets by name', () => assert.strictEqual('Hello, Ada', 'Hello, Ada!'));",
  ...Array.from({ length: 30 }, (_, i) => `test('passes later ${i}', () => assert.ok(true));`),
  '',
].join('\n');

describe('failureExcerpt', () => {
  it('keeps the failing node:test test with its assertion, from TAP output (the default off a terminal)', () => {
    const output = run(project({ 'test/greet.test.js': NODE_TESTS }), process.execPath, ['--test', '--test-reporter=tap']);
    assert.match(output, /^TAP version/m);
    const tail = output.trim().split('\n').slice(-12).join('\n');
    assert.doesNotMatch(tail, /greets by name/, 'the tail alone has lost the name');
    const excerpt = failureExcerpt(output);
    assert.equal(excerpt.shape, 'tap');
    assert.match(excerpt.text, /^not ok 31 - greets by name/m);
    assert.match(excerpt.text, /\+ 'Hello, Ada'\n\s+- 'Hello, Ada!'/);
    assert.match(excerpt.text, /# fail 1/);
    assert.doesNotMatch(excerpt.text, /passes later/);
  });

  it('keeps it from the spec reporter too, once', () => {
    const output = run(project({ 'test/greet.test.js': NODE_TESTS }), process.execPath, ['--test', '--test-reporter=spec']);
    const excerpt = failureExcerpt(output);
    assert.equal(excerpt.shape, 'node:test');
    assert.equal(excerpt.text.match(/✖ greets by name/g)?.length, 1, 'the repeat under "failing tests:" is left out');
    assert.match(excerpt.text, /Expected values to be strictly equal/);
    assert.match(excerpt.text, /ℹ fail 1/);
  });

  it('keeps pytest failures: each block with its E lines, and the short summary', { skip: !hasPytest() && 'pytest is not installed (Debian: python3-pytest)' }, () => {
    const dir = project({
      'greet.py': 'def greet(name):\n    return "Hello, " + name\n',
      'tests/__init__.py': '',
      'tests/test_greet.py': [
        'from greet import greet',
        ...Array.from({ length: 20 }, (_, i) => `def test_passes_${i}():\n    assert greet("x") == "Hello, x"`),
        'def test_greets_by_name():\n    assert greet("Ada") == "Hello, Ada!"',
        '',
      ].join('\n'),
      'conftest.py': '',
    });
    const output = run(dir, 'python3', ['-m', 'pytest', '-p', 'no:cacheprovider']);
    const excerpt = failureExcerpt(output);
    assert.equal(excerpt.shape, 'pytest');
    assert.match(excerpt.text, /_+ test_greets_by_name _+/);
    assert.match(excerpt.text, /^E\s+AssertionError: assert 'Hello, Ada' == 'Hello, Ada!'/m);
    assert.match(excerpt.text, /^FAILED tests\/test_greet\.py::test_greets_by_name/m);
  });

  for (const [file, shape, name] of [
    ['jest.txt', 'jest', /● greet › greets by name/],
    ['mocha.txt', 'mocha', /1\) greet\n\s+greets by name:/],
    ['vitest.txt', 'vitest', /FAIL {2}src\/greet\.test\.ts > greet > greets by name/],
    ['cargo.txt', 'cargo test', /---- tests::greets_by_name stdout ----/],
    ['go.txt', 'go test', /--- FAIL: TestGreetByName/],
  ] as const) {
    it(`recognises ${shape} output`, () => {
      const output = readFileSync(join(__dirname, '..', 'fixtures', 'gate-output', file), 'utf8');
      const excerpt = failureExcerpt(output);
      assert.equal(excerpt.shape, shape);
      assert.match(excerpt.text, name);
      assert.match(excerpt.text, /Hello, Ada!/, 'with what was expected');
    });
  }

  it('keeps the head and the tail of output it does not recognise', () => {
    const output = ['make: building', ...Array.from({ length: 200 }, (_, i) => `step ${i}`), 'make: *** [all] Error 2'].join('\n');
    const excerpt = failureExcerpt(output);
    assert.equal(excerpt.shape, null);
    assert.match(excerpt.text, /^make: building/);
    assert.match(excerpt.text, /lines left out/);
    assert.match(excerpt.text, /make: \*\*\* \[all\] Error 2$/);
  });
});

function hasPytest(): boolean {
  return spawnSync('python3', ['-m', 'pytest', '--version'], { encoding: 'utf8' }).status === 0;
}
