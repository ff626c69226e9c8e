import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { RunEvent } from '../../src/engine/domain/events';
import type { TraceReport } from '../../src/engine/report/traceReport';
import { integrationMerges, logProblems, startKiller, withDeadline } from '../faults/faultHelpers';
import { runCli, startCli, writeInputs } from '../helpers/cli';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

/**
 * The merge queue through the real CLI, real git and the scripted agent: conflicts resolved by an
 * agent behind the gate and the critic, overlap serialisation, a batch bisected to the merge that
 * broke the integration gate, and every way out a person has.
 */

const repos: TempRepo[] = [];
after(() => repos.forEach((r) => r.cleanup()));

const INDEX = "'use strict';\n\nfunction identity(s) {\n  return s;\n}\n\nmodule.exports = {\n  identity,\n};\n";
/** A small library whose index every helper task edits, with a real node --test suite. */
function library(): TempRepo {
  const r = makeTempRepo({
    files: {
      'package.json': `${JSON.stringify({ name: 'strkit', version: '1.0.0', private: true, scripts: { test: 'node --test' } }, null, 2)}\n`,
      'README.md': '# strkit\n',
      'index.js': INDEX,
      'check-exports.js':
        "const lib = require('./index.js');\nconst src = require('fs').readFileSync('index.js', 'utf8');\nfor (const [, name] of src.matchAll(/^function (\\w+)\\(/gm)) if (!lib[name]) { console.error(name + ' is not exported'); process.exit(1); }\n",
      'test/index.test.js': "'use strict';\nconst test = require('node:test');\nconst assert = require('node:assert');\nconst lib = require('../index.js');\n\ntest('identity', () => assert.strictEqual(lib.identity('a'), 'a'));\n",
    },
  });
  repos.push(r);
  return r;
}

const task = (id: string, files?: string[], dependsOn: string[] = []) => ({
  id,
  title: `Add ${id}()`,
  description: `Add ${id}() to index.js and export it.`,
  acceptance: [`${id}() is exported`],
  dependsOn,
  ...(files ? { files } : {}),
});
const green = (summary = 'fine') => ({ verdict: { decision: 'green', summary, findings: [] } });
/** The actor adds a helper just before the exports and exports it first: every helper meets the others there. */
const addHelper = (name: string, body: string) => ({
  patch: [{ path: 'index.js', find: 'module.exports = {\n', replace: `function ${name}${body}\n\nmodule.exports = {\n  ${name},\n` }],
});
const TRIM = addHelper('trim', '(s) {\n  return String(s).trim();\n}');
const PAD = addHelper('pad', '(s, n) {\n  return String(s).padStart(n);\n}');
/** What a good resolution of trim and pad leaves: both helpers, both exported. */
const BOTH =
  "'use strict';\n\nfunction identity(s) {\n  return s;\n}\n\nfunction trim(s) {\n  return String(s).trim();\n}\n\nfunction pad(s, n) {\n  return String(s).padStart(n);\n}\n\nmodule.exports = {\n  pad,\n  trim,\n  identity,\n};\n";
const RESOLVE_BOTH = { write: { 'index.js': BOTH } };
/** The gate: the project's tests, and every helper index.js defines is exported. */
const GATE = ['--gate', 'npm test --silent', '--gate', 'node check-exports.js'];

function run(r: TempRepo, plan: object, scenario: object, ...flags: string[]) {
  const inputs = writeInputs({ 'plan.json': plan, 'scenario.json': { defaults: { delayMs: 0 }, ...scenario } });
  return runCli(['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', ...flags]);
}

function trace(r: TempRepo): TraceReport {
  const result = runCli(['trace', '--json', '--cwd', r.dir]);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as TraceReport;
}

function events(r: TempRepo): RunEvent[] {
  const runs = join(r.dir, '.taskloom', 'runs');
  const [runId] = readdirSync(runs);
  return readFileSync(join(runs, runId!, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as RunEvent);
}

const states = (t: TraceReport) => Object.fromEntries(t.tasks.map((x) => [x.id, x.state]));
const seqOf = (list: RunEvent[], taskId: string, event: string) =>
  list.find((e) => e.type === 'task_transition' && e.taskId === taskId && e.event === event)?.seq ?? Number.NaN;
const out = (result: { stdout: string; stderr: string }) => `${result.stdout}\n${result.stderr}`;

describe('a merge conflict between two tasks', () => {
  it('goes to the resolving agent, through the gate and the critic, and the run completes with both changes', () => {
    const r = library();
    const plan = { goal: 'two helpers', tasks: [task('trim'), task('pad')] };
    const scenario = {
      tasks: {
        trim: { actor: [TRIM], resolve: [RESOLVE_BOTH], critic: [green('trim is right'), green('the resolution keeps both helpers')] },
        pad: { actor: [PAD], resolve: [RESOLVE_BOTH], critic: [green('pad is right'), green('the resolution keeps both helpers')] },
      },
    };
    const result = run(r, plan, scenario, ...GATE, '--overlap', 'off', '--parallel', '2');
    assert.equal(result.code, 0, out(result));
    const t = trace(r);
    assert.equal(t.status, 'completed');
    assert.deepEqual(states(t), { trim: 'MERGED', pad: 'MERGED' });
    assert.equal(r.git(['show', `${t.integration.branch}:index.js`]), BOTH.trimEnd());

    const log = events(r);
    const resolver = t.tasks.find((x) => x.mergeConflicts === 1)!;
    assert.ok(resolver, 'one of the two met the other in the queue');
    const synced = log.find((e) => e.type === 'task_synced' && e.taskId === resolver.id);
    assert.deepEqual(synced?.type === 'task_synced' && synced.conflicts, ['index.js']);
    // The resolution went through the gate and a second review, then merged.
    const afterResolve = resolver.transitions.slice(resolver.transitions.findIndex((x) => x.event === 'RESOLVE_STARTED')).map((x) => x.event);
    assert.deepEqual(afterResolve, ['RESOLVE_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN', 'MERGE_STARTED', 'MERGE_VERIFIED']);
    const verdicts = log.filter((e) => e.type === 'critic_verdict' && e.taskId === resolver.id);
    const last = verdicts.at(-1);
    assert.equal(last?.type === 'critic_verdict' && last.verdict.summary, 'the resolution keeps both helpers');
    assert.doesNotMatch(result.stdout, /Needs you/);
    assert.match(result.stdout, /completed — 2\/2 merged into .*integration gate passed/);

    // Complete means applicable: the run lands on the user's branch.
    const applied = runCli(['apply', '--yes', '--cwd', r.dir]);
    assert.equal(applied.code, 0, out(applied));
    assert.equal(readFileSync(join(r.dir, 'index.js'), 'utf8'), BOTH);
  });

  it('with overlapping files hints, the later task waits and starts from the integration branch that holds the earlier one', () => {
    const r = library();
    const plan = { goal: 'two helpers', tasks: [task('trim', ['index.js']), task('pad', ['index.js']), task('docs', ['README.md'])] };
    const scenario = {
      tasks: {
        trim: { actor: [TRIM], critic: [green()] },
        pad: { actor: [PAD], critic: [green()] },
        docs: { actor: [{ write: { 'README.md': '# strkit\n\ntrim and pad.\n' } }], critic: [green()] },
      },
    };
    const result = run(r, plan, scenario, ...GATE, '--parallel', '3');
    assert.equal(result.code, 0, out(result));
    assert.match(result.stdout, /Predicted overlaps[^\n]*\n\s+pad after trim: both touch index\.js/);
    const log = events(r);
    assert.ok(seqOf(log, 'pad', 'BUILD_STARTED') > seqOf(log, 'trim', 'MERGE_VERIFIED'), 'pad started once trim was merged');
    assert.ok(seqOf(log, 'docs', 'BUILD_STARTED') < seqOf(log, 'trim', 'MERGE_VERIFIED'), 'docs did not wait: it shares no file');
    const trimMerge = log.find((e) => e.type === 'merge_done' && e.taskId === 'trim');
    const padStart = log.find((e) => e.type === 'worktree_prepared' && e.taskId === 'pad');
    assert.ok(trimMerge?.type === 'merge_done' && padStart?.type === 'worktree_prepared');
    assert.equal(r.git(['merge-base', '--is-ancestor', trimMerge.commit, padStart.baseCommit]), '', 'pad started from a commit holding trim');
    const t = trace(r);
    assert.deepEqual(states(t), { trim: 'MERGED', pad: 'MERGED', docs: 'MERGED' });
    assert.equal(t.tasks.find((x) => x.id === 'pad')!.mergeConflicts, 0, 'no conflict happened');
    assert.match(t.tasks.find((x) => x.id === 'pad')!.transitions[0]!.reason, /after trim: both touch index\.js/);
    assert.deepEqual(t.integration.overlaps, [{ first: 'trim', second: 'pad', files: ['index.js'] }]);
  });

  it('with --overlap off the same two tasks run side by side, and the queue resolves their conflict', () => {
    const r = library();
    const plan = { goal: 'two helpers', tasks: [task('trim', ['index.js']), task('pad', ['index.js'])] };
    const scenario = {
      tasks: {
        trim: { actor: [TRIM], resolve: [RESOLVE_BOTH], critic: [green()] },
        pad: { actor: [PAD], resolve: [RESOLVE_BOTH], critic: [green()] },
      },
    };
    const result = run(r, plan, scenario, ...GATE, '--overlap', 'off', '--parallel', '2');
    assert.equal(result.code, 0, out(result));
    assert.doesNotMatch(result.stdout, /Predicted overlaps/);
    const log = events(r);
    const firstMerge = Math.min(seqOf(log, 'trim', 'MERGE_VERIFIED'), seqOf(log, 'pad', 'MERGE_VERIFIED'));
    assert.ok(seqOf(log, 'trim', 'BUILD_STARTED') < firstMerge && seqOf(log, 'pad', 'BUILD_STARTED') < firstMerge, 'both started before either merged');
    const t = trace(r);
    assert.equal(t.tasks.reduce((n, x) => n + x.mergeConflicts, 0), 1);
    assert.equal(r.git(['show', `${t.integration.branch}:index.js`]), BOTH.trimEnd());
  });
});

describe('the integration gate in the merge queue', () => {
  /**
   * A batch of three, whatever the machine's speed: a, b and c pass their own gates only once
   * "first" is green, so first is merged alone; its integration gate waits until all four are green,
   * so the next batch holds a, b and c. b's file breaks the build once first's file is there.
   */
  function batchOfThree(r: TempRepo): string[] {
    const log = join(r.dir, '.taskloom', 'runs', '*', 'events.jsonl');
    const greens = `grep -c '"to":"GREEN"' ${log}`;
    const firstGreen = `grep '"taskId":"first"' ${log} | grep -q '"to":"GREEN"'`;
    const inIntegration = '[ "$(basename "$PWD")" = @integration ]';
    const gate = [
      `if ${inIntegration} && [ -f first.txt ]; then until [ "$(${greens})" -ge 4 ]; do sleep 0.1; done; fi`,
      `if ! ${inIntegration} && [ ! -f first.txt ]; then until ${firstGreen}; do sleep 0.1; done; fi`,
      'test ! -f b.txt -o ! -f first.txt',
    ].join('; ');
    const plan = { goal: 'batch', tasks: [task('first'), task('a'), task('b'), task('c')] };
    const file = (name: string) => ({ write: { [`${name}.txt`]: `${name}\n` } });
    const scenario = {
      tasks: {
        first: { actor: [file('first')], critic: [green()] },
        a: { actor: [file('a')], critic: [green()] },
        b: { actor: [file('b'), { delete: ['b.txt'], write: { 'b-fixed.txt': 'b\n' } }], critic: [green()] },
        c: { actor: [file('c')], critic: [green()] },
      },
    };
    const inputs = writeInputs({ 'plan.json': plan, 'scenario.json': { defaults: { delayMs: 0 }, ...scenario } });
    // The gate orders the tasks by reading the run's log, which a sandbox hides unless it is made readable.
    const runs = join(r.dir, '.taskloom', 'runs');
    // On the base it would wait for a task that cannot start before the baseline ends: this gate is no project's check.
    return ['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', '--gate', gate, '--parallel', '4', '--read-path', runs, '--no-baseline'];
  }

  it('bisects a failing batch of three to the merge that broke it, which goes back to its actor; the other two stay merged', () => {
    const r = library();
    const result = runCli(batchOfThree(r));
    assert.equal(result.code, 0, out(result));
    const list = events(r);
    const batches = list.filter((e) => e.type === 'queue_batch');
    assert.deepEqual(batches[1]?.type === 'queue_batch' && batches[1].taskIds, ['a', 'b', 'c']);
    const bisected = list.find((e) => e.type === 'queue_bisected');
    assert.deepEqual(bisected?.type === 'queue_bisected' && { culprit: bisected.culprit, merged: bisected.merged, requeued: bisected.requeued }, {
      culprit: 'b',
      merged: ['a'],
      requeued: ['c'],
    });
    const t = trace(r);
    const b = t.tasks.find((x) => x.id === 'b')!;
    assert.ok(b.transitions.some((x) => x.event === 'INTEGRATION_GATE_FAILED'));
    assert.ok(b.transitions.some((x) => x.from === 'INTEGRATION_FAILED' && x.event === 'RETRY_BUILD'), 'b went back to its actor');
    assert.deepEqual(states(t), { first: 'MERGED', a: 'MERGED', b: 'MERGED', c: 'MERGED' });
    assert.deepEqual(t.integration.merged.slice(0, 2), ['first', 'a']);
    const tree = r.git(['ls-tree', '--name-only', t.integration.branch!]).split('\n');
    assert.ok(tree.includes('b-fixed.txt') && !tree.includes('b.txt'));
  });

  for (const [name, spec] of [
    ['after the batch gate failed, before the bisection', { type: 'gate_result', where: { taskId: null, passed: false } }],
    ['mid-bisection, after its first step', { type: 'gate_result', where: { taskId: null }, occurrence: 3 }],
    ['between publishing the good merges and sending the culprit back', { type: 'queue_bisected' }],
  ] as const) {
    it(`killed ${name}, the run resumes to the same end`, async () => {
      const r = library();
      const { pid, result } = withDeadline(startCli(batchOfThree(r)), 120_000);
      const kill = await startKiller(r.dir, pid, spec);
      await result;
      assert.ok(kill.killed, 'the kill point was reached');
      const resumed = runCli(['resume', '--cwd', r.dir]);
      assert.equal(resumed.code, 0, out(resumed));
      const t = trace(r);
      assert.deepEqual(states(t), { first: 'MERGED', a: 'MERGED', b: 'MERGED', c: 'MERGED' });
      const tree = r.git(['ls-tree', '--name-only', t.integration.branch!]).split('\n');
      assert.ok(tree.includes('b-fixed.txt') && !tree.includes('b.txt') && ['first.txt', 'a.txt', 'c.txt'].every((f) => tree.includes(f)));
      const merges = integrationMerges(r, t.integration.branch!);
      for (const id of ['first', 'a', 'b', 'c']) assert.equal(merges.filter((m) => m === id).length, 1, `${id} merged once`);
      assert.deepEqual(logProblems(r.dir), []);
    });
  }

  it('never calls a run with an unmerged task complete, and names what needs you with the commands', () => {
    const r = library();
    // Each passes alone; together the gate fails, and b's actor cannot fix it. Side by side (an
    // approved task holds its slot until merged, so with one slot b would start on top of a), b later.
    const plan = { goal: 'clash', tasks: [task('a'), task('b')] };
    const scenario = { tasks: { a: { actor: [{ write: { 'a.txt': 'a\n' } }] }, b: { actor: [{ delayMs: 1500, write: { 'b.txt': 'b\n' } }] } } };
    const result = run(r, plan, scenario, '--gate', 'test ! -f a.txt || test ! -f b.txt', '--parallel', '2');
    assert.equal(result.code, 1, out(result));
    const t = trace(r);
    assert.equal(t.status, 'needs_human');
    assert.deepEqual(states(t), { a: 'MERGED', b: 'NEEDS_HUMAN' });
    assert.match(t.tasks[1]!.lastReason, /gate still failing after 3 attempts/);
    assert.deepEqual(t.counts, { total: 2, merged: 1, skipped: 0 });
    // The summary claims no more than happened: nothing about a gate passing on a run with unmerged work.
    assert.match(result.stdout, /needs you — 1\/2 merged into \S+, 1 needs you\n/);
    assert.match(result.stdout, /Needs you:\n {2}b: the integration gate fails with it merged/);
    for (const command of ['retry b', 'resolve b', 'skip b']) assert.match(result.stdout, new RegExp(`taskloom ${command} `));
    assert.doesNotMatch(result.stdout, /taskloom accept b/, 'work the queue sent back cannot be accepted as it is');
  });
});

describe('ways out of a conflict, from the CLI', () => {
  /**
   * trim and pad start side by side from the same base; whichever merges second conflicts, and its
   * resolver fails the first time, so it waits for a person. Returns that task and the other.
   */
  function stuckConflict(extraTasks: object[] = [], extraScripts: object = {}): { r: TempRepo; stuck: string; other: string } {
    const r = library();
    const plan = { goal: 'two helpers', tasks: [task('trim'), task('pad'), ...extraTasks] };
    const resolve = [{ fail: 'I cannot tell which export comes first' }, RESOLVE_BOTH];
    const scenario = {
      tasks: {
        trim: { actor: [TRIM], resolve, critic: [green()] },
        pad: { actor: [PAD], resolve, critic: [green()] },
        ...extraScripts,
      },
    };
    const result = run(r, plan, scenario, ...GATE, '--overlap', 'off', '--parallel', '2');
    assert.equal(result.code, 1, out(result));
    const t = trace(r);
    const stuck = t.tasks.find((x) => x.state === 'NEEDS_HUMAN')!.id;
    assert.match(result.stdout, new RegExp(`${stuck}: merge conflict in index\\.js`));
    return { r, stuck, other: stuck === 'trim' ? 'pad' : 'trim' };
  }

  it('resume does not loop on the same failure: it stops at once where it stood', () => {
    const { r, stuck } = stuckConflict();
    const before = events(r).filter((e) => e.type === 'queue_batch').length;
    const resumed = runCli(['resume', '--cwd', r.dir]);
    assert.equal(resumed.code, 1, out(resumed));
    assert.equal(events(r).filter((e) => e.type === 'queue_batch').length, before, 'no merge was tried again');
    assert.equal(states(trace(r))[stuck], 'NEEDS_HUMAN');
  });

  it('retry hands the note to the resolving agent and the run completes', () => {
    const { r, stuck } = stuckConflict();
    const retried = runCli(['retry', stuck, '--note', 'export pad first', '--cwd', r.dir]);
    assert.equal(retried.code, 0, out(retried));
    const t = trace(r);
    assert.deepEqual(states(t), { trim: 'MERGED', pad: 'MERGED' });
    const task = t.tasks.find((x) => x.id === stuck)!;
    assert.deepEqual(
      task.transitions.filter((x) => x.from === 'PENDING').map((x) => x.event),
      ['BUILD_STARTED', 'RESOLVE_STARTED'],
      'after the retry it resolved, it did not build from scratch',
    );
    assert.equal(r.git(['show', `${t.integration.branch}:index.js`]), BOTH.trimEnd());
  });

  it('resolve by hand leaves the conflict in the worktree; continue gates the result and merges it', () => {
    const { r, stuck } = stuckConflict();
    const resolved = runCli(['resolve', stuck, '--cwd', r.dir]);
    assert.equal(resolved.code, 1, out(resolved));
    const path = /^ {2}(\/\S+)$/m.exec(resolved.stdout)![1]!;
    assert.match(resolved.stdout, /conflicts in:\n {2}index\.js/);
    assert.match(readFileSync(join(path, 'index.js'), 'utf8'), /^<<<<<<< /m);
    assert.equal(states(trace(r))[stuck], 'HUMAN_RESOLVING');

    const early = runCli(['continue', stuck, '--cwd', r.dir]);
    assert.equal(early.code, 1);
    assert.match(early.stdout, /no conflict markers left/);
    assert.equal(states(trace(r))[stuck], 'HUMAN_RESOLVING', 'markers left: it stays with the person');

    // The person resolves it in their editor.
    writeFileSync(join(path, 'index.js'), BOTH);
    const continued = runCli(['continue', stuck, '--cwd', r.dir]);
    assert.equal(continued.code, 0, out(continued));
    const t = trace(r);
    assert.equal(t.status, 'completed');
    assert.deepEqual(states(t), { trim: 'MERGED', pad: 'MERGED' });
    assert.ok(t.tasks.find((x) => x.id === stuck)!.transitions.some((x) => x.event === 'HAND_RESOLVED'));
    assert.equal(r.git(['show', `${t.integration.branch}:index.js`]), BOTH.trimEnd());
  });

  it('skip drops the task (and what depends on it) and completes the rest', () => {
    const uses = (id: string) => ({ ...task(`uses-${id}`, undefined, [id]) });
    const write = (id: string) => ({ actor: [{ write: { [`uses-${id}.txt`]: 'x\n' } }], critic: [green()] });
    const { r, stuck, other } = stuckConflict([uses('trim'), uses('pad')], { 'uses-trim': write('trim'), 'uses-pad': write('pad') });
    const skipped = runCli(['skip', stuck, '--cwd', r.dir]);
    assert.equal(skipped.code, 0, out(skipped));
    assert.match(skipped.stdout, /completed — 2\/4 merged into \S+, 2 skipped, integration gate passed/);
    const t = trace(r);
    assert.deepEqual(states(t), { [stuck]: 'SKIPPED', [`uses-${stuck}`]: 'SKIPPED', [other]: 'MERGED', [`uses-${other}`]: 'MERGED' });
    assert.deepEqual(t.integration.conflicts, []);
  });

  it('refuses a decision the task does not allow, saying what it does allow', () => {
    const { r, stuck, other } = stuckConflict();
    const accepted = runCli(['accept', stuck, '--cwd', r.dir]);
    assert.equal(accepted.code, 2);
    assert.match(accepted.stderr, new RegExp(`Task "${stuck}" \\(needs you\\) cannot be accepted now\\. What it allows: retry, resolve, skip\\.`));
    const early = runCli(['continue', other, '--cwd', r.dir]);
    assert.equal(early.code, 2);
    assert.match(early.stderr, /Nothing is waiting for you on this task/);
  });
});
