import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import type { RunEvent } from '../../src/engine/domain/events';
import { runCli, writeInputs, type CliResult } from '../helpers/cli';
import { tempRepos } from '../helpers/fileScoped';
import { green, runEvents, task, trace, write } from '../helpers/scriptedRun';
import type { TempRepo } from '../helpers/tempRepo';

// What a gate writes into a task's worktree (bytecode, caches, coverage, a rewritten file) never
// reaches a commit: the built CLI, real git, real pytest and node --test, the scripted agent.

const repo = tempRepos();
const hasPytest = spawnSync('python3', ['-c', 'import pytest'], { stdio: 'ignore' }).status === 0;
const hasVenv = spawnSync('python3', ['-c', 'import pytest, venv, ensurepip'], { stdio: 'ignore' }).status === 0;

/** A run of one task whose actor writes `attempts` in turn, to its end; Python may write bytecode as it does by default. */
function runTask(r: TempRepo, attempts: Array<Record<string, string>>, ...flags: string[]): CliResult {
  const inputs = writeInputs({
    'plan.json': { goal: 'the change', tasks: [task('change')] },
    'scenario.json': { tasks: { change: { actor: attempts.map(write), critic: [green] } } },
  });
  // The gates here check the work still to be done (`test -f done.txt`): failing on the base is what they are for.
  const args = ['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', ...flags, '--on-base-failure', 'required'];
  return runCli(args, { env: { PYTHONDONTWRITEBYTECODE: undefined } });
}

/** Whether the task's gates failed and then passed, in that order: the failing gate's leftovers had a commit to get into. */
const gateOutcomes = (r: TempRepo): boolean[] =>
  runEvents(r.dir)
    .filter((e): e is Extract<RunEvent, { type: 'gate_result' }> => e.type === 'gate_result' && e.taskId === 'change')
    .map((e) => e.passed);

/** Every path any commit of the repository touched: the task branch, its snapshots, the integration branch, main after apply. */
const pathsInAnyCommit = (r: TempRepo): string[] => [...new Set(r.git(['log', '--all', '--format=', '--name-only']).split('\n').filter(Boolean))];

/** Runs `taskloom apply`: what the user's branch gets. */
function apply(r: TempRepo): void {
  const applied = runCli(['apply', '--yes', '--cwd', r.dir]);
  assert.equal(applied.code, 0, applied.stdout + applied.stderr);
}

const PYTHON_PROJECT = {
  'shop/__init__.py': '',
  'shop/prices.py': 'def with_tax(amount):\n    return round(amount * 1.2, 2)\n',
  'shop/basket.py': 'from shop.prices import with_tax\n\n\ndef total(items):\n    return with_tax(sum(items))\n',
  'tests/test_prices.py': 'from shop.prices import with_tax\n\n\ndef test_with_tax():\n    assert with_tax(10) == 12\n',
  'tests/test_basket.py': 'from shop.basket import total\n\n\ndef test_total():\n    assert total([5, 5]) == 12\n',
  'conftest.py': '',
};
const discount = (rate: string) => ({
  'shop/discount.py': `def discounted(amount):\n    return amount * ${rate}\n`,
  'tests/test_discount.py': 'from shop.discount import discounted\n\n\ndef test_discounted():\n    assert discounted(10) == 9\n',
});

describe('the gate leaves no trace in the work (taskloom run, real processes)', () => {
  it('pytest: a first attempt that fails the gate, a second that passes; no bytecode or pytest cache in any commit, merged or applied', { skip: !hasPytest && 'python3 with pytest is not installed' }, () => {
    const r = repo(PYTHON_PROJECT);
    const result = runTask(r, [discount('0.8'), discount('0.9')], '--gate', 'python3 -m pytest -q');
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.deepEqual(gateOutcomes(r), [false, true], 'the first gate ran pytest and failed, the second passed');
    assert.equal(trace(r.dir).tasks[0]!.state, 'MERGED');
    apply(r);
    const paths = pathsInAnyCommit(r);
    assert.ok(paths.includes('shop/discount.py'), 'the work itself is committed and applied');
    assert.deepEqual(paths.filter((p) => /__pycache__|\.pyc$|\.pytest_cache/.test(p)), []);
    assert.equal(r.git(['status', '--porcelain']), '', 'the applied branch is clean');
  });

  it('node --test writing V8 coverage: the coverage folder never reaches a commit', () => {
    const r = repo({
      'package.json': '{ "name": "app", "version": "1.0.0", "private": true }\n',
      'lib/sum.js': 'exports.sum = (a, b) => a + b;\n',
      'test/sum.test.js': "const test = require('node:test');\nconst assert = require('node:assert');\nconst { sum } = require('../lib/sum');\ntest('sum', () => assert.equal(sum(1, 2), 3));\n",
    });
    const product = (body: string) => ({
      'lib/product.js': `exports.product = (a, b) => ${body};\n`,
      'test/product.test.js': "const test = require('node:test');\nconst assert = require('node:assert');\nconst { product } = require('../lib/product');\ntest('product', () => assert.equal(product(2, 3), 6));\n",
    });
    const result = runTask(r, [product('a + b'), product('a * b')], '--gate', 'NODE_V8_COVERAGE=coverage node --test');
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.deepEqual(gateOutcomes(r), [false, true]);
    apply(r);
    const paths = pathsInAnyCommit(r);
    assert.ok(paths.includes('lib/product.js'));
    assert.deepEqual(paths.filter((p) => p.startsWith('coverage/')), []);
  });

  it('a gate that rewrites a tracked file (a formatter) is undone: no commit holds its rewrite', () => {
    const r = repo({
      // The "formatter" appends a line to every .js file of lib/, as a formatter rewrites what it formats.
      'format.js': "const fs = require('node:fs');\nfor (const f of fs.readdirSync('lib')) fs.appendFileSync(`lib/${f}`, '// formatted\\n');\n",
      'check.js': "const { half } = require('./lib/half');\nif (half(4) !== 2) process.exit(1);\n",
      'lib/keep.js': 'module.exports = 1;\n',
    });
    const half = (body: string) => ({ 'lib/half.js': `exports.half = (n) => ${body};\n` });
    const result = runTask(r, [half('n * 2'), half('n / 2')], '--gate', 'node format.js', '--gate', 'node check.js');
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.deepEqual(gateOutcomes(r), [false, true]);
    apply(r);
    assert.equal(r.git(['log', '--all', '-G', 'formatted', '--format=%h %s', '--', 'lib']), '', 'no commit adds the formatter\'s line');
    assert.equal(r.git(['show', 'main:lib/keep.js']), 'module.exports = 1;');
  });

  it('--keep-output keeps what the user says a gate writes into the work: the next commit has it, and nothing else the gate wrote', () => {
    const r = repo({
      'gen.js': "const fs = require('node:fs');\nfs.mkdirSync('generated', { recursive: true });\nfs.writeFileSync('generated/version.txt', 'v1\\n');\nfs.writeFileSync('gate.log', 'noise\\n');\n",
      'check.js': "if (require('node:fs').readFileSync('answer.txt', 'utf8') !== '42\\n') process.exit(1);\n",
    });
    const result = runTask(r, [{ 'answer.txt': '41\n' }, { 'answer.txt': '42\n' }], '--gate', 'node gen.js', '--gate', 'node check.js', '--keep-output', 'generated/**');
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.deepEqual(gateOutcomes(r), [false, true]);
    const branch = trace(r.dir).tasks[0]!.branch!;
    assert.equal(r.git(['show', `${branch}:generated/version.txt`]), 'v1', 'the output kept by the first gate is in the second attempt\'s commit');
    assert.deepEqual(pathsInAnyCommit(r).filter((p) => p === 'gate.log'), [], 'what the setting does not name is not kept');
  });

  it('what setup made (a venv, node_modules) stays through each gate\'s cleaning: the next gate still finds it', { skip: !hasVenv && 'python3 with pytest and venv is not installed' }, () => {
    const r = repo({
      ...PYTHON_PROJECT,
      '.gitignore': '.venv/\nnode_modules/\n',
      'check.js': "require('greeting');\n",
    });
    const result = runTask(
      r,
      [discount('0.8'), discount('0.9')],
      '--setup', 'python3 -m venv --system-site-packages .venv',
      '--setup', "mkdir -p node_modules/greeting && echo 'module.exports = 1;' > node_modules/greeting/index.js",
      '--gate', '.venv/bin/python -m pytest -q',
      '--gate', 'node check.js',
    );
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.deepEqual(gateOutcomes(r), [false, true], 'the second gate found the venv and node_modules the setup made before the first');
    const setups = runEvents(r.dir).filter((e) => e.type === 'worktree_setup');
    assert.equal(setups.length, 1, 'the setup ran once, before the first attempt');
    assert.deepEqual(pathsInAnyCommit(r).filter((p) => /__pycache__|\.pytest_cache|^\.venv|^node_modules/.test(p)), []);
  });
});
