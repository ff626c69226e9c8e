import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runCli, writeInputs } from '../helpers/cli';
import { tempRepos } from '../helpers/fileScoped';
import { green, runEvents, trace, write } from '../helpers/scriptedRun';

// `--confirm-pick`: the critic's pick of a task's candidates waits for a person before it goes on
// to the gate, the review and the merge queue. The built CLI, real git worktrees, a real gate.

const repo = tempRepos();
const GATE = ['--gate', 'node check.js', '--on-base-failure', 'required'];
const CHECK = "const fs = require('node:fs'); if (fs.readFileSync('answer.txt', 'utf8').trim() !== 'ok') process.exit(1);\n";
const PLAN = {
  goal: 'answer',
  tasks: [{ id: 'answer', title: 'Answer', description: 'write ok to answer.txt', acceptance: ['answer.txt says ok'], dependsOn: [], candidates: 3 }],
};
const SCENARIO = {
  tasks: {
    answer: {
      candidates: [{ actor: [write({ 'answer.txt': 'wrong\n' })] }, { actor: [write({ 'answer.txt': 'ok\n', 'by.txt': 'two\n' })] }, { actor: [write({ 'answer.txt': 'ok\n', 'by.txt': 'three\n' })] }],
      compare: [{ output: { pick: 3, reasons: 'candidate 3 names itself plainly' }, delayMs: 0 }],
      critic: [green],
    },
  },
};

/** Runs the plan with the pick held; the task then waits for the person, the pick's work not yet reviewed. */
function heldRun() {
  const r = repo({ 'check.js': CHECK, 'answer.txt': 'no\n' });
  const inputs = writeInputs({ 'plan.json': PLAN, 'scenario.json': SCENARIO });
  const result = runCli(['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', ...GATE, '--confirm-pick']);
  assert.equal(trace(r.dir).tasks[0]!.state, 'NEEDS_HUMAN', result.stdout + result.stderr);
  const held = runEvents(r.dir).filter((e) => e.type === 'task_transition' && e.event === 'PICK_HELD');
  assert.equal(held.length, 1);
  assert.equal(held[0]!.type === 'task_transition' && held[0].reason, 'the critic picked candidate 3: go on with it, or choose another');
  assert.ok(!runEvents(r.dir).some((e) => e.type === 'critic_verdict' || e.type === 'merge_queued'), 'nothing reviewed or queued before the person says so');
  return r;
}

const mergedBy = (r: ReturnType<typeof heldRun>) => r.git(['show', `taskloom/${trace(r.dir).runId}/integration:by.txt`]).trim();

describe('holding the critic\'s pick for a person (--confirm-pick)', () => {
  it('waits for the person; choosing the pick goes on with it, reviewed and merged, and holds it no more', () => {
    const r = heldRun();
    const goOn = runCli(['choose', 'answer', '3', '--cwd', r.dir]);
    assert.equal(goOn.code, 0, goOn.stdout + goOn.stderr);
    assert.equal(trace(r.dir).tasks[0]!.state, 'MERGED');
    assert.equal(mergedBy(r), 'three');
    assert.equal(runEvents(r.dir).filter((e) => e.type === 'task_transition' && e.event === 'PICK_HELD').length, 1);
  });

  it('choosing another instead makes that one the one that merges, without building any candidate again', () => {
    const r = heldRun();
    const chosen = runCli(['choose', 'answer', '2', '--note', 'two is enough', '--cwd', r.dir]);
    assert.equal(chosen.code, 0, chosen.stdout + chosen.stderr);
    assert.equal(trace(r.dir).tasks[0]!.state, 'MERGED');
    assert.equal(mergedBy(r), 'two');
    assert.equal(runEvents(r.dir).filter((e) => e.type === 'candidate_started').length, 3);
  });
});
