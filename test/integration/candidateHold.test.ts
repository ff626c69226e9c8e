import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ANSWER_CHECK, ANSWER_GATE, answerPlan, THREE_CANDIDATES } from '../helpers/answerCandidates';
import { runCli, writeInputs } from '../helpers/cli';
import { tempRepos } from '../helpers/fileScoped';
import { runEvents, trace } from '../helpers/scriptedRun';

// `--confirm-pick`: the critic's pick of a task's candidates waits for a person before it goes on
// to the gate, the review and the merge queue. The built CLI, real git worktrees, a real gate.

const repo = tempRepos();

/** Runs the plan with the pick held; the task then waits for the person, the pick's work not yet reviewed. */
function heldRun() {
  const r = repo({ 'check.js': ANSWER_CHECK, 'answer.txt': 'no\n' });
  const inputs = writeInputs({ 'plan.json': answerPlan(3), 'scenario.json': THREE_CANDIDATES });
  const result = runCli(['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', ...ANSWER_GATE, '--confirm-pick']);
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
