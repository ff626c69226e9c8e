import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createProgressPrinter } from '../../src/cli/progressPrinter';
import { formatRunSummary, nextSteps } from '../../src/cli/summary';
import type { RunState } from '../../src/engine/domain/runState';
import { judgementTags, runGateBrief } from '../../src/engine/text/gateWords';
import { firstPage } from '../../src/protocol/runViewPages';
import { EventBuilder } from '../helpers/eventBuilder';
import { BASE_COMMANDS, BROKEN_ON_BASE, baselineResult, command, pausedOnBase, testRef } from '../helpers/gateEvents';
import { storedRun } from '../helpers/storedRun';

const SHA = 'a'.repeat(40);
const FLAKY = testRef('reconnects after a dropped socket', 'test/net.test.js');
const MISSED = testRef('slug keeps unicode letters', 'test/slug.test.js');

/** Every line the CLI prints while the events are written, as a person watching the run reads them. */
function printedWhile(b: EventBuilder): { lines: string[]; state: RunState } {
  const lines: string[] = [];
  const print = createProgressPrinter((line) => lines.push(...line.split('\n').map((l) => l.replace(/^(?: *\d+\.\ds {2}| {9})/, '').trimEnd())));
  const state = storedRun(b, print);
  return { lines, state };
}

/** A run paused on its base: `npm test` names its one broken test, `npm run lint` fails with no runner to say what. */
function pausedRun(): EventBuilder {
  const b = new EventBuilder('r');
  b.add({ type: 'plan_approved', by: 'human' });
  for (const body of pausedOnBase(SHA)) b.add(body);
  return b;
}

/**
 * The same base, lint made advisory; task a's gate passes with the broken test already failing on
 * main, a flaky one and a narrowed selection; b's is served from a's (same tree); the integration
 * gate, running everything, finds a failure no task gate ran.
 */
function judgedRun(): EventBuilder {
  const b = new EventBuilder('r');
  b.add({ type: 'plan_approved', by: 'human' });
  b.add(baselineResult(SHA));
  b.add({ type: 'baseline_choice', commands: ['npm run lint'], choice: 'advisory' });
  b.move('a', 'BUILD_STARTED', 'BUILD_FINISHED');
  const selection = { kind: 'affected' as const, how: 'import graph' as const, why: '7 of 212 test files import the change' };
  const aGate = b.add({
    type: 'gate_result',
    taskId: 'a',
    attempt: 1,
    passed: true,
    tree: 't'.repeat(40),
    key: 'k-a',
    commands: [
      { ...command('npm test', 1, { failed: [BROKEN_ON_BASE, FLAKY], alreadyFailing: [BROKEN_ON_BASE], flaky: [FLAKY] }), selection },
      command('npm run lint', 1, undefined, { advisory: true }),
    ],
  });
  b.move('a', 'MECHANICAL_PASSED', 'CRITIC_GREEN');
  b.move('b', 'BUILD_STARTED', 'BUILD_FINISHED');
  b.add({ type: 'gate_result', taskId: 'b', attempt: 1, passed: true, tree: 't'.repeat(40), key: 'k-a', commands: aGate.type === 'gate_result' ? aGate.commands : [], cachedFrom: { seq: aGate.seq, taskId: 'a', attempt: 1 } });
  b.add({ type: 'gate_result', taskId: null, attempt: 1, passed: false, commit: 'c'.repeat(40), taskIds: ['a', 'b'], commands: [command('npm test', 1, { failed: [BROKEN_ON_BASE, MISSED], alreadyFailing: [BROKEN_ON_BASE], newFailures: [MISSED] })] });
  b.add({ type: 'missed_regression', command: 'npm test', tests: [MISSED], taskIds: ['a', 'b'] });
  return b;
}

describe('what the user reads of the gate’s judgement, from events written through the store', () => {
  it('the CLI’s progress: the baseline and what waits for the user’s choice, with the three commands in the end summary', () => {
    const { lines, state } = printedWhile(pausedRun());
    assert.deepEqual(lines.filter((l) => l.startsWith('baseline') || l.startsWith(' ')), [
      'baseline       the gate on main fails `npm test` and `npm run lint`',
      "               `npm test`: already failing on main: parses dates in the local zone — not any task's to fix",
      '               `npm run lint` fails on main and no runner said which tests: the run waits for your choice',
    ]);
    assert.ok(
      lines.includes(
        'run paused: `npm run lint` fails on main before any task changed anything, and no test runner says which tests: treat it as advisory for this run ' +
          '(its failures are shown and fail no gate), keep it as required (a check of work still to be done: the tasks must make it pass), or cancel the run',
      ),
      lines.join('\n'),
    );
    const steps = nextSteps(state);
    assert.ok(steps.some((l) => l.startsWith('  treat `npm run lint` as advisory and resume: taskloom resume --advisory r --cwd ')), steps.join('\n'));
    assert.ok(steps.some((l) => l.startsWith('  keep `npm run lint` as required and resume: taskloom resume --required r --cwd ')), steps.join('\n'));
    assert.ok(steps.some((l) => l.startsWith('  cancel the run: taskloom cancel r --cwd ')), steps.join('\n'));
    assert.ok(!steps.some((l) => /Continue later with/.test(l)), 'no plain resume: it would pause again');
    assert.equal(runGateBrief(state), '1 already failing on main, base fails: waits for your choice');
  });

  it('a gate’s judgement as it happens: already failing on main (not the task’s), flaky, advisory, the selection, cached; a missed regression in red words', () => {
    const { lines } = printedWhile(judgedRun());
    assert.ok(lines.includes('baseline       `npm run lint` advisory for this run (your choice): shown, failing no gate'), lines.join('\n'));
    assert.ok(
      lines.includes(
        "a              gate passed — already failing on main: parses dates in the local zone (not this task's); flaky: reconnects after a dropped socket; " +
          'advisory: `npm run lint` (fails on main too); ran only what the change can affect — `npm test`: 7 of 212 test files import the change',
      ),
      lines.join('\n'),
    );
    assert.ok(lines.includes('b              gate passed — cached (same tree as "a" attempt 1)'), lines.join('\n'));
    assert.ok(lines.includes('merge queue    missed regression: `npm test` fails slug keeps unicode letters after a, b, whose task gates did not run them'), lines.join('\n'));
  });

  it('a command kept as required, by the user or ahead by taskloom.gate.onBaseFailure: the progress, the summary and `taskloom runs` say it is a check the tasks must make pass', () => {
    const b = pausedRun();
    b.add({ type: 'baseline_choice', commands: ['npm run lint'], choice: 'required' });
    const { lines, state } = printedWhile(b);
    assert.ok(lines.includes('baseline       `npm run lint` required (your choice): a check of work still to be done, judged by its exit code'), lines.join('\n'));
    assert.ok(
      formatRunSummary(state).split('\n').includes('  `npm run lint` fails on main: kept as required, a check of work still to be done that the tasks must make pass'),
      formatRunSummary(state),
    );
    assert.equal(runGateBrief(state), '1 already failing on main, 1 command failing on main kept as required');

    const ahead = new EventBuilder('r');
    ahead.add({ type: 'plan_approved', by: 'autopilot' });
    ahead.add(baselineResult(SHA));
    ahead.add({ type: 'baseline_choice', commands: ['npm run lint'], choice: 'advisory', bySetting: true });
    assert.ok(
      printedWhile(ahead).lines.includes('baseline       `npm run lint` advisory for this run (set ahead by taskloom.gate.onBaseFailure): shown, failing no gate'),
    );
  });

  it('the end summary and `taskloom runs` say what the run’s gates rested on', () => {
    const state = storedRun(judgedRun());
    const summary = formatRunSummary(state).split('\n');
    const from = summary.findIndex((l) => l.startsWith('Baseline'));
    assert.deepEqual(summary.slice(from, from + 7), [
      'Baseline  the gate on main fails `npm test` and `npm run lint`',
      "  `npm test`: already failing on main: parses dates in the local zone — not any task's to fix",
      '  `npm run lint` fails on main too: advisory for this run (your choice)',
      'Flaky     reconnects after a dropped socket (failed, then passed alone: not counted as failures)',
      'Cached    1 gate served from a gate of the same tree',
      'Missed    1 regression the task gates did not run; the integration gate caught them:',
      '  `npm test`: slug keeps unicode letters (after a, b)',
    ]);
    assert.equal(runGateBrief(state), '1 already failing on main, 1 command advisory, 1 missed regression');
    assert.equal(runGateBrief(storedRun(new EventBuilder('r'))), undefined, 'a run before the baseline: nothing to say');
  });

  it('the run view’s ledger tags a gate entry with what it rested on, and its first page carries no gate output', () => {
    const state = storedRun(judgedRun());
    const gates = state.decisions.filter((d) => d.fact.type === 'gate_result').map((d) => d.fact);
    const tags = gates.map((fact) => (fact.type === 'gate_result' ? judgementTags(fact, 'main', fact.integration ? 'integration' : 'task').map((t) => t.label) : []));
    const ofA = ['1 test already failing on main', '1 flaky', 'advisory', 'affected tests only'];
    assert.deepEqual(tags, [ofA, [...ofA, 'cached'], ['1 test already failing on main']], 'a cached result is the same result, from where it says');
    const page = firstPage(state).state;
    assert.deepEqual(page.gateCache, {});
    assert.deepEqual(page.baseline?.commands.map((c) => c.output), ['', '']);
    assert.deepEqual(page.baseline?.commands.map((c) => c.tests?.failed.length), BASE_COMMANDS.map((c) => c.tests?.failed.length), 'what the view shows is kept');
    assert.ok(Object.keys(state.gateCache).length > 0, 'the state itself keeps the cache');
  });
});
