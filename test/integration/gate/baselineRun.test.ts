import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { RunEvent } from '../../../src/engine/domain/events';
import { runEvents, runScripted, trace } from '../../helpers/scriptedRun';
import { makeTempRepo, type TempRepo } from '../../helpers/tempRepo';
import { runCli } from '../../helpers/cli';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The gate judges the change, not the repository: a whole run through the real CLI, real git,
 * Node's own test runner and the scripted agent, on a library whose main already has a failing test.
 */

const repos: TempRepo[] = [];
after(() => repos.forEach((r) => r.cleanup()));

const test = (name: string, body: string) => `import test from 'node:test';\nimport assert from 'node:assert/strict';\n${body}\ntest(${JSON.stringify(name)}, () => {\n  CHECK\n});\n`;

/** An ES-module library (so the import graph places every file) with one test that fails on main: it needs a service the machine lacks. */
function libraryWithABrokenTest(): TempRepo {
  const r = makeTempRepo({
    files: {
      'package.json': `${JSON.stringify({ name: 'textkit', version: '1.0.0', private: true, type: 'module', scripts: { test: 'node --test' } }, null, 2)}\n`,
      'README.md': '# textkit\n',
      'src/words.js': "export const words = (s) => s.split(/\\s+/).filter(Boolean);\n",
      'src/index.js': "export { words } from './words.js';\n",
      'test/words.test.js': test('words splits on spaces', "import { words } from '../src/words.js';").replace('CHECK', "assert.deepEqual(words('a b'), ['a', 'b']);"),
      'test/remote.test.js': test('remote dictionary answers', '').replace('CHECK', "assert.fail('the dictionary service is not running');"),
    },
  });
  repos.push(r);
  return r;
}

const plan = {
  goal: 'grow textkit',
  tasks: [
    { id: 'slug', title: 'Add slug()', description: 'Add src/slug.js with its test.', acceptance: [], dependsOn: [] },
    { id: 'pad', title: 'Add pad()', description: 'Add src/pad.js with its test.', acceptance: [], dependsOn: [] },
  ],
};
const SLUG = {
  write: {
    'src/slug.js': "export const slug = (s) => s.toLowerCase().replace(/\\s+/g, '-');\n",
    'test/slug.test.js': test('slug joins words', "import { slug } from '../src/slug.js';").replace('CHECK', "assert.equal(slug('A B'), 'a-b');"),
  },
};
/** Its own new test fails, every attempt. */
const PAD = {
  write: {
    'src/pad.js': 'export const pad = (s, n) => s.padEnd(n);\n',
    'test/pad.test.js': test('pad pads on the left', "import { pad } from '../src/pad.js';").replace('CHECK', "assert.equal(pad('a', 3), '  a');"),
  },
};
const green = { verdict: { decision: 'green', summary: 'fine', findings: [] } };

const gateResults = (events: RunEvent[], taskId: string | null) => events.filter((e): e is Extract<RunEvent, { type: 'gate_result' }> => e.type === 'gate_result' && e.taskId === taskId);

describe('a run on a repository whose main already fails a test', () => {
  it('holds only the task that breaks something, lists what already failed, and never gives it to the agent', () => {
    const r = libraryWithABrokenTest();
    const scenario = { defaults: { delayMs: 0 }, tasks: { slug: { actor: [SLUG], critic: [green] }, pad: { actor: [PAD, PAD, PAD], critic: [green] } } };
    // Every test at every gate, so each gate meets the broken one.
    const result = runScripted(r.dir, plan, scenario, '--gate', 'npm test --silent', '--max-attempts', '2', '--parallel', '2', '--no-affected-only');
    const output = `${result.stdout}\n${result.stderr}`;
    const t = trace(r.dir);
    assert.deepEqual(Object.fromEntries(t.tasks.map((x) => [x.id, x.state])), { slug: 'MERGED', pad: 'NEEDS_HUMAN' }, output);

    const events = runEvents(r.dir);
    const baseline = events.find((e) => e.type === 'baseline_result');
    assert.ok(baseline?.type === 'baseline_result', 'the base was gated');
    assert.deepEqual(baseline.commands[0]?.tests?.failed.map((x) => x.name), ['remote dictionary answers']);

    const slugGate = gateResults(events, 'slug').at(-1)!;
    assert.equal(slugGate.passed, true);
    assert.deepEqual(slugGate.commands[0]?.tests?.alreadyFailing.map((x) => x.name), ['remote dictionary answers'], 'listed, not held against it');
    assert.deepEqual(slugGate.commands[0]?.tests?.newFailures, []);

    const padGate = gateResults(events, 'pad').at(-1)!;
    assert.equal(padGate.passed, false);
    assert.deepEqual(padGate.commands[0]?.tests?.newFailures.map((x) => x.name), ['pad pads on the left'], 'only its own failure is its job');
    assert.deepEqual(padGate.commands[0]?.tests?.alreadyFailing.map((x) => x.name), ['remote dictionary answers']);

    const integration = gateResults(events, null);
    assert.ok(integration.length > 0 && integration.every((g) => g.passed), 'the integration gate judges by the same rule');
    assert.deepEqual(integration.at(-1)?.commands[0]?.tests?.alreadyFailing.map((x) => x.name), ['remote dictionary answers']);
    assert.match(output, /already failing on main: remote dictionary answers/);
  });

  it('runs at a task gate only the tests its change can reach, and the integration gate runs them all', () => {
    const r = libraryWithABrokenTest();
    const scenario = { defaults: { delayMs: 0 }, tasks: { slug: { actor: [SLUG], critic: [green] } } };
    runScripted(r.dir, { goal: 'slug', tasks: [plan.tasks[0]] }, scenario, '--gate', 'npm test --silent');
    const events = runEvents(r.dir);
    const slugGate = gateResults(events, 'slug').at(-1)!;
    assert.equal(slugGate.commands[0]?.selection?.kind, 'affected');
    assert.equal(slugGate.commands[0]?.tests?.passed, 1, 'only test/slug.test.js ran');
    const integration = gateResults(events, null).at(-1)!;
    assert.equal(integration.commands[0]?.selection, undefined, 'every test');
    assert.equal(integration.commands[0]?.tests?.passed, 2);
    assert.equal(trace(r.dir).status, 'completed');
  });

  it('gates a base once: a second run on the same main is served the first run’s baseline', () => {
    const r = libraryWithABrokenTest();
    const scenario = { defaults: { delayMs: 0 }, tasks: { slug: { actor: [SLUG], critic: [green] } } };
    const one = { goal: 'slug', tasks: [plan.tasks[0]] };
    runScripted(r.dir, one, scenario, '--gate', 'npm test --silent');
    runCli(['discard', '--yes', '--cwd', r.dir]);
    runScripted(r.dir, one, scenario, '--gate', 'npm test --silent');
    const baseline = runEvents(r.dir).find((e) => e.type === 'baseline_result');
    assert.ok(baseline?.type === 'baseline_result' && baseline.cached === true, 'cached from the first run');
  });

  it('with --no-baseline, every failure is the task’s, as before', () => {
    const r = libraryWithABrokenTest();
    const scenario = { defaults: { delayMs: 0 }, tasks: { slug: { actor: [SLUG, SLUG], critic: [green] } } };
    runScripted(r.dir, { goal: 'slug', tasks: [plan.tasks[0]] }, scenario, '--gate', 'npm test --silent', '--max-attempts', '1', '--no-baseline');
    const events = runEvents(r.dir);
    assert.equal(events.find((e) => e.type === 'baseline_result'), undefined);
    assert.equal(trace(r.dir).tasks[0]?.state, 'NEEDS_HUMAN');
  });

  it('a drive that finds the baseline known removes the checkout a drive killed while the baseline ran left behind', () => {
    const r = makeTempRepo({ files: { 'a.txt': 'a\n' } });
    repos.push(r);
    const scenario = { defaults: { delayMs: 0 }, tasks: { one: { actor: [{ write: { 'b.txt': 'b\n' } }], critic: [green] } } };
    const onePlan = { goal: 'b', tasks: [{ id: 'one', title: 'Write b', description: 'b.txt', acceptance: [], dependsOn: [], files: ['b.txt'] }] };
    // No runner says which tests `test -f` is about: the run pauses for the choice, its baseline recorded.
    const paused = runScripted(r.dir, onePlan, scenario, '--gate', 'test -f never-written.txt');
    assert.equal(trace(r.dir).status, 'paused', paused.stdout + paused.stderr);
    const leftover = join(r.dir, '.taskloom', 'worktrees', trace(r.dir).runId, '@baseline');
    r.git(['worktree', 'add', '-q', '--detach', leftover, 'HEAD']);

    const resumed = runCli(['resume', '--advisory', '--yes', '--cwd', r.dir]);
    assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
    assert.ok(!existsSync(leftover), 'the leftover baseline checkout is gone');
    assert.doesNotMatch(r.git(['worktree', 'list']), /@baseline/);
  });
});
