import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { foldEvents } from '../../src/engine/domain/projection';
import { allowedRunActions, allowedTaskActions, baselineChoiceOf, runActionRefusal, taskActionRefusal, type RunFacts } from '../../src/engine/domain/runActions';
import type { RunState } from '../../src/engine/domain/runState';
import { isNotStartedByCancel, taskStateWords } from '../../src/engine/domain/stateWords';
import { runRefusalWords, taskRefusalWords } from '../../src/engine/text/actionWords';
import { callWords } from '../../src/engine/text/callWords';
import { firstPage } from '../../src/protocol/runViewPages';
import { EventBuilder, TWO_TASK_PLAN } from '../helpers/eventBuilder';
import { pausedOnBase } from '../helpers/gateEvents';

const SHA = 'c'.repeat(40);

/** The facts of a run the window does not drive, as the tree, the run view and the commands see it. */
const stopped = (state: RunState, over: Partial<RunFacts> = {}): RunFacts => ({
  status: state.status,
  driven: false,
  state,
  total: state.taskOrder.length,
  unfinished: 0,
  planApproved: state.planApproved,
  ...over,
});

/** Task a of a two-task run (b after a), its plan approved, taken through `events`. */
function runWith(build: (b: EventBuilder) => void): RunState {
  const b = new EventBuilder('r');
  b.add({ type: 'plan_approved', by: 'human' });
  build(b);
  return foldEvents(b.events)!;
}

/** A goal the planner drafted TWO_TASK_PLAN for, waiting for approval (as the editor starts a run). */
function planned(): EventBuilder {
  const b = new EventBuilder('r', { goal: 'two tasks', tasks: [] });
  b.add({ type: 'plan_proposed', round: 1, plan: TWO_TASK_PLAN });
  return b;
}

const started = (b: EventBuilder, taskId = 'a') =>
  b.add({ type: 'worktree_prepared', taskId, branch: `taskloom/r/${taskId}`, path: `/w/${taskId}`, baseCommit: SHA, fresh: true });

describe('which actions apply: one set of rules for the tree, the run view, the notifications and the commands', () => {
  it('a plan is approved, edited or cancelled only while it waits; a stale Approve says what happened instead', () => {
    const b = planned();
    const waiting = foldEvents(b.events)!;
    assert.deepEqual(allowedRunActions(stopped(waiting)), ['approvePlan', 'editPlan', 'rejectPlan', 'discard']);
    assert.deepEqual(runActionRefusal('approvePlan', { ...stopped(waiting), driven: true }), { kind: 'being_planned' });

    b.add({ type: 'plan_approved', by: 'human' });
    const approved = runActionRefusal('approvePlan', { ...stopped(foldEvents(b.events)!), status: 'running', driven: true });
    assert.equal(runRefusalWords(approved!, 'run "two tasks"'), 'The plan of run "two tasks" was already approved');

    // A task the planner left without a description is filled in or dropped before the plan can be approved.
    const incomplete = new EventBuilder('r', { goal: 'two tasks', tasks: [] });
    incomplete.add({ type: 'plan_proposed', round: 1, plan: { ...TWO_TASK_PLAN, tasks: TWO_TASK_PLAN.tasks.map((t) => (t.id === 'b' ? { ...t, description: '' } : t)) } });
    const unfinishedPlan = stopped(foldEvents(incomplete.events)!);
    assert.deepEqual(allowedRunActions(unfinishedPlan), ['editPlan', 'rejectPlan', 'discard']);
    assert.equal(
      runRefusalWords(runActionRefusal('approvePlan', unfinishedPlan)!, 'run "two tasks"'),
      'The plan of run "two tasks" cannot start yet: task "b" has no description. Fill in what is missing or drop the task, then approve the plan',
    );

    const cancelled = planned();
    cancelled.add({ type: 'run_finished', status: 'cancelled', summary: 'the plan was not approved; nothing was run' });
    const state = foldEvents(cancelled.events)!;
    assert.equal(runRefusalWords(runActionRefusal('approvePlan', stopped(state))!, 'run "two tasks"'), 'Run "two tasks" was cancelled');
    // Nothing was built: a resume has nothing to go on from, so it is not offered either.
    assert.equal(runRefusalWords(runActionRefusal('resume', stopped(state))!, 'run "two tasks"'), 'Run "two tasks" cannot be resumed: it stopped before its plan was approved, so nothing was built');
    assert.deepEqual(allowedRunActions(stopped(state)), ['discard']);
  });

  it('Accept only for a task that produced work; the one whose actor failed before changing a file can be retried or skipped', () => {
    const noWork = runWith((b) => {
      started(b);
      b.move('a', 'BUILD_STARTED', 'AGENT_FAILED');
    }).tasks.a!;
    assert.deepEqual(allowedTaskActions(noWork), ['retry', 'skip', 'takeOver', 'diff', 'openWorktree']);
    assert.equal(taskRefusalWords(noWork, 'accept', taskActionRefusal('accept', noWork)!), 'Task "a" produced no work to accept (its commits changed no file)');

    const withWork = runWith((b) => {
      started(b);
      b.move('a', 'BUILD_STARTED');
      b.add({ type: 'work_committed', taskId: 'a', attempt: 1, commit: SHA, filesChanged: ['a.txt'] });
      b.move('a', 'AGENT_FAILED');
    }).tasks.a!;
    assert.deepEqual(allowedTaskActions(withWork), ['retry', 'accept', 'skip', 'takeOver', 'diff', 'openWorktree']);
  });

  it('Stop and Take Over on a task at work; once a person stopped it, Hand Back (not Continue), and Take Over again', () => {
    const atWork = runWith((b) => {
      started(b);
      b.move('a', 'BUILD_STARTED');
    }).tasks.a!;
    assert.deepEqual(allowedTaskActions(atWork), ['stop', 'takeOver', 'diff', 'openWorktree']);
    const pending = runWith(started).tasks.b!;
    assert.equal(taskRefusalWords(pending, 'stop', taskActionRefusal('stop', pending)!), 'Task "b" has nothing to stop: it is pending');

    const stopped = runWith((b) => {
      started(b);
      b.move('a', 'BUILD_STARTED');
      b.move('a', 'HUMAN_STOPPED');
    }).tasks.a!;
    assert.equal(stopped.withPerson, 'stopped');
    assert.deepEqual(allowedTaskActions(stopped), ['retry', 'handBack', 'skip', 'takeOver', 'diff', 'openWorktree']);
    assert.equal(taskRefusalWords(stopped, 'continue', taskActionRefusal('continue', stopped)!), 'Task "a" (needs you) cannot be continued (only a task being resolved by hand, or one a person stopped or took over, can) now');
  });

  it('the run view decides on its first page as the tree does on the whole state: no rule reads a task’s history', () => {
    const state = runWith((b) => {
      started(b);
      b.move('a', 'BUILD_STARTED');
      b.add({ type: 'work_committed', taskId: 'a', attempt: 1, commit: SHA, filesChanged: ['a.txt'] });
      b.move('a', 'AGENT_FAILED');
      b.move('b', 'DEPENDENCY_FAILED');
    });
    const page = firstPage(state).state;
    for (const id of state.taskOrder) assert.deepEqual(allowedTaskActions(page.tasks[id]!), allowedTaskActions(state.tasks[id]!), id);
  });

  it('a task skipped because its dependency was is neither retried nor diffed: it comes back when that one is; one a person skipped can be retried', () => {
    const state = runWith((b) => {
      started(b);
      b.move('a', 'BUILD_STARTED', 'AGENT_FAILED');
      b.move('b', 'DEPENDENCY_FAILED');
    });
    const b = state.tasks.b!;
    assert.deepEqual(allowedTaskActions(b), [], 'nothing to do on it');
    assert.equal(
      taskRefusalWords(b, 'retry', taskActionRefusal('retry', b)!),
      'Task "b" was skipped because a task it depends on did not go green: it starts again by itself once that task is retried',
    );
    assert.equal(taskRefusalWords(b, 'diff', taskActionRefusal('diff', b)!), 'Task "b" never started: it has no work to show');

    const skippedByHand = runWith((b) => {
      started(b);
      b.move('a', 'BUILD_STARTED', 'AGENT_FAILED', 'HUMAN_SKIPPED');
    }).tasks.a!;
    assert.deepEqual(allowedTaskActions(skippedByHand), ['retry', 'diff', 'openWorktree']);
  });

  it('a completed run: Apply until it is applied, Open Pull Request only with a remote and none open yet', () => {
    const b = new EventBuilder('r');
    b.add({ type: 'plan_approved', by: 'human' });
    b.add({ type: 'run_finished', status: 'completed', summary: 'done' });
    const completed = foldEvents(b.events)!;
    assert.deepEqual(allowedRunActions(stopped(completed, { hasRemote: true })), ['apply', 'openPullRequest', 'integrationDiff', 'discard']);
    const noRemote = runActionRefusal('openPullRequest', stopped(completed, { hasRemote: false }));
    assert.equal(runRefusalWords(noRemote!, 'run "two tasks"'), 'The repository of run "two tasks" has no remote named origin to push a pull request to');

    b.add({ type: 'run_applied', branch: 'main', commit: SHA, history: 'merge', commits: 1 });
    b.add({ type: 'pull_request', taskId: null, number: 7, url: 'https://x/7', head: 'h', base: 'main', action: 'opened', repo: 'o/r', remote: 'origin' });
    const delivered = stopped(foldEvents(b.events)!, { hasRemote: true });
    assert.equal(runRefusalWords(runActionRefusal('apply', delivered)!, 'run "two tasks"'), 'Run "two tasks" was already applied to main (at cccccccccc)');
    assert.equal(runRefusalWords(runActionRefusal('openPullRequest', delivered)!, 'run "two tasks"'), 'Run "two tasks" already has pull request #7');
    assert.deepEqual(allowedRunActions(delivered), ['integrationDiff', 'discard']);
  });

  it('Resume only where it would work on: not on a driven run, nor on one whose every task left waits for you', () => {
    const state = runWith((b) => {
      started(b);
      b.move('a', 'BUILD_STARTED', 'AGENT_FAILED');
      b.move('b', 'DEPENDENCY_FAILED');
      b.add({ type: 'run_finished', status: 'needs_human', summary: 'a needs you' });
    });
    assert.equal(runRefusalWords(runActionRefusal('resume', stopped(state))!, 'run "two tasks"'), 'Run "two tasks" has nothing to resume: 1 task left waits for your decision');
    const interrupted = runWith((b) => {
      started(b);
      b.move('a', 'BUILD_STARTED');
    });
    assert.equal(runActionRefusal('resume', stopped(interrupted)), undefined, 'the window went away mid-step: Resume goes on');
    assert.deepEqual(runActionRefusal('resume', { ...stopped(interrupted), driven: true }), { kind: 'driven' });
    assert.deepEqual(runActionRefusal('cancel', { ...stopped(interrupted), driven: true }), undefined);
    // A run listed but not loaded: its status and counts decide, the engine answers the rest.
    assert.equal(runActionRefusal('resume', { status: 'running', driven: false, total: 2, unfinished: 2, planApproved: true }), undefined);
    assert.deepEqual(runActionRefusal('resume', { status: 'cancelled', driven: false, total: 2, unfinished: 2, planApproved: false }), {
      kind: 'resume',
      outlook: { kind: 'startAgain', why: 'its plan was never approved', withPlan: true },
    });
  });

  it('a run paused because its base fails a command no runner explains: Treat as Advisory, Keep as Required and Cancel, never a Resume that would pause again', () => {
    const b = new EventBuilder('r');
    b.add({ type: 'plan_approved', by: 'human' });
    for (const body of pausedOnBase(SHA)) b.add(body);
    const paused = stopped(foldEvents(b.events)!);
    assert.deepEqual(allowedRunActions(paused), ['treatAsAdvisory', 'keepAsRequired', 'cancel', 'discard']);
    assert.deepEqual(baselineChoiceOf(paused), ['npm run lint'], '`npm test` named its failing test: no choice about it');
    assert.equal(
      runRefusalWords(runActionRefusal('resume', paused)!, 'run "two tasks"'),
      "Run \"two tasks\" waits for your choice: `npm run lint` fails on the run's base before any task changed anything, and no test runner says which tests: " +
        'treat it as advisory for this run (its failures are shown and fail no gate), keep it as required (a check of work still to be done: the tasks must make it pass), or cancel the run',
    );
    assert.deepEqual(runActionRefusal('treatAsAdvisory', { ...paused, driven: true }), { kind: 'driven' });
    assert.deepEqual(runActionRefusal('keepAsRequired', { ...paused, driven: true }), { kind: 'driven' });

    // Chosen: the run resumes as any other, and nothing waits for a choice.
    b.add({ type: 'baseline_choice', commands: ['npm run lint'], choice: 'required' });
    const chosen = stopped(foldEvents(b.events)!);
    assert.deepEqual(allowedRunActions(chosen), ['resume', 'discard']);
    assert.deepEqual(runActionRefusal('keepAsRequired', chosen), { kind: 'no_baseline_choice' });
    assert.equal(
      runRefusalWords(runActionRefusal('treatAsAdvisory', chosen)!, 'run "two tasks"'),
      'Run "two tasks" does not wait for a choice about its base: nothing fails there that a runner could not explain',
    );
  });
});

describe('words that are so', () => {
  it('a cancelled run’s tasks that never started read "not started", not "pending"', () => {
    assert.equal(taskStateWords('PENDING', { driven: false, status: 'cancelled' }), 'not started (run cancelled)');
    assert.equal(taskStateWords('PENDING', { driven: false, status: 'running' }), 'pending', 'a stopped run resumes it: it is pending');
    assert.equal(taskStateWords('CANCELLED', { driven: false, status: 'cancelled' }), 'cancelled');
    assert.equal(isNotStartedByCancel('NEEDS_HUMAN', { status: 'cancelled' }), false);
  });

  it('each call is numbered by what it counts: under "Attempt 2", the critic’s first review is "review 1"', () => {
    assert.equal(callWords({ role: 'critic', attempt: 1 }), 'critic · review 1');
    assert.equal(callWords({ role: 'actor', attempt: 2 }), 'actor · attempt 2');
    assert.equal(callWords({ role: 'actor', attempt: 1, purpose: 'resolve' }), 'actor · resolution 1');
    assert.equal(callWords({ role: 'critic', attempt: 1 }, true), 'critic · plan review 1');
  });
});
