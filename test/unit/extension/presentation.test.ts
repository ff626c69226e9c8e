import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { TASK_STATE_LOOK } from '../../../src/webview/runView/stateStyle';
import { attentionItems } from '../../../src/extension/state/attention';
import { runContextValue, taskContextValue } from '../../../src/extension/tree/contextValues';
import { openTranscript, plainText, runPhase, runRow, runViewTitle, TASK_LOOK, transcriptLineWords } from '../../../src/extension/tree/presentation';
import { resumeMessage } from '../../../src/extension/resumeMessage';
import { isResumable, startAgainOf } from '../../../src/extension/state/resumable';
import { TASK_STATES } from '../../../src/engine/domain/taskStates';
import { foldEvents } from '../../../src/engine/domain/projection';
import type { RunListEntry } from '../../../src/protocol/engineProtocol';
import { EventBuilder } from '../../helpers/eventBuilder';

const summary = (over: Partial<RunListEntry>): RunListEntry => ({
  runId: 'r',
  goal: 'add rate limiting',
  pullRequestsToWatch: 0,
  createdAt: '',
  updatedAt: '',
  status: 'running',
  lastSeq: 1,
  merged: 3,
  skipped: 0,
  total: 7,
  active: false,
  planApproved: true,
  foreign: false,
  ...over,
});

describe('tree presentation', () => {
  it('every task state has an icon and a colour', () => {
    for (const state of TASK_STATES) assert.ok(TASK_LOOK[state].icon, state);
  });

  it('a skipped task looks left out, not retried: one icon in the tree and the run view, used by no other state and no command', () => {
    assert.equal(TASK_LOOK.SKIPPED.icon, TASK_STATE_LOOK.SKIPPED.icon);
    for (const state of TASK_STATES.filter((s) => s !== 'SKIPPED')) {
      assert.notEqual(TASK_LOOK[state].icon, TASK_LOOK.SKIPPED.icon, state);
      assert.notEqual(TASK_STATE_LOOK[state].icon, TASK_STATE_LOOK.SKIPPED.icon, state);
    }
    const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { contributes: { commands: Array<{ icon?: string }> } };
    const commandIcons = manifest.contributes.commands.map((c) => c.icon);
    assert.ok(!commandIcons.includes(`$(${TASK_LOOK.SKIPPED.icon})`), 'not the icon of an action (Skip, Retry…)');
  });

  it('a run that says it is running but that no engine drives is stopped (resumable); a drafted plan awaits approval', () => {
    assert.equal(runPhase(summary({ active: true }), undefined), 'running');
    assert.equal(runPhase(summary({}), undefined), 'stopped');
    assert.equal(runPhase(summary({ status: 'planning' }), undefined), 'awaitingApproval');
    assert.equal(runPhase(summary({ status: 'planning', active: true }), undefined), 'planning');
    assert.equal(runContextValue({ status: 'planning', driven: false, total: 7, unfinished: 7, planApproved: false }), 'run.awaitingApproval.can-approvePlan.can-editPlan.can-rejectPlan.can-discard');
    assert.equal(runContextValue({ status: 'completed', driven: false, total: 7, unfinished: 0, planApproved: true }), 'run.completed.can-apply.can-openPullRequest.can-integrationDiff.can-discard');
  });

  it('a run whose plan was never approved is started again, not resumed: its menus say so, with or without its state loaded', () => {
    const cancelledUnapproved = { folder: '/repo', summary: summary({ status: 'cancelled', planApproved: false, merged: 0, total: 5 }) };
    assert.equal(isResumable(cancelledUnapproved), false);
    assert.deepEqual(startAgainOf(cancelledUnapproved), { withPlan: true, rejectedPlan: false });
    const b = new EventBuilder('r', { goal: 'g', tasks: [] });
    b.add({ type: 'run_finished', status: 'failed', summary: 'no valid plan', rejectedPlan: 'not a plan' });
    const failedPlanning = { folder: '/repo', summary: summary({ status: 'failed', planApproved: false, merged: 0, total: 0 }), state: foldEvents(b.events)! };
    assert.deepEqual(startAgainOf(failedPlanning), { withPlan: false, rejectedPlan: true });
    assert.equal(runContextValue({ status: 'failed', driven: false, state: failedPlanning.state, total: 0, unfinished: 0, planApproved: false }, startAgainOf(failedPlanning)), 'run.failed.can-discard.startAgain.rejectedPlan');
    const stoppedMidRun = { folder: '/repo', summary: summary({}) };
    assert.deepEqual([isResumable(stoppedMidRun), startAgainOf(stoppedMidRun)], [true, undefined]);
  });

  it('a run row leads with its phase and count, then the goal; its tab title tells two runs of one goal apart', () => {
    const goal = 'Grow textkit: slugs, word counts, title case and a summary';
    assert.deepEqual(runRow(summary({ goal }), 'needs_human'), { label: 'needs you · 3/7', description: goal });
    assert.deepEqual(runRow(summary({ goal: '' }), 'stopped'), { label: 'stopped · 3/7', description: 'r' });
    const first = runViewTitle(goal, '20261129-071502-a1b2');
    const second = runViewTitle(goal, '20261129-071502-c3d4');
    assert.equal(first, 'Grow textkit: slugs, word count… · a1b2');
    assert.notEqual(first, second);
    assert.equal(runViewTitle(undefined, 'my-run'), 'Taskloom run · my-run');
  });

  it('says what stopped where', () => {
    assert.equal(resumeMessage(summary({}), 'stopped'), "Taskloom run 'add rate limiting' stopped with 3 of 7 tasks merged.");
    assert.match(resumeMessage(summary({ status: 'paused', skipped: 1 }), 'paused'), /is paused with 3 of 7 tasks merged, 1 skipped/);
  });

  it('agent text becomes one plain line: escapes and control characters removed, markup kept as text, length bounded', () => {
    assert.equal(plainText('\u001b[31mred\u001b[0m <b>bold</b>\r\n\tnext\u0007'), 'red <b>bold</b> next');
    assert.equal(plainText('\u001b]8;;https://x\u0007link\u001b]8;;\u0007'), 'link');
    assert.equal(plainText('x'.repeat(50), 10), `${'x'.repeat(9)}…`);
  });

  it('task rows carry their state and what they have in contextValue, for the menus', () => {
    const b = new EventBuilder('r');
    b.add({ type: 'plan_approved', by: 'human' });
    b.add({ type: 'worktree_prepared', taskId: 'a', branch: 'taskloom/r/a', path: '/w/a', baseCommit: 'b'.repeat(40), fresh: true });
    b.move('a', 'BUILD_STARTED', 'AGENT_FAILED');
    const state = foldEvents(b.events)!;
    // The actions come from the engine's one table of human decisions; an actor that failed left no work to accept.
    assert.equal(taskContextValue(state.tasks.a!), 'task.NEEDS_HUMAN.can-retry.can-skip.can-takeOver.can-diff.can-openWorktree');
    assert.equal(taskContextValue(state.tasks.b!), 'task.PENDING');
    const items = attentionItems('/repo', summary({ status: 'needs_human', runId: 'r' }), state);
    assert.deepEqual(items.map((i) => [i.kind, 'taskId' in i ? i.taskId : undefined]), [['task', 'a']]);
  });

  it('a conflict that waits for a person is a Needs You row with Retry, Resolve by Hand and Skip; one its agent is resolving is not', () => {
    const b = new EventBuilder('r');
    b.add({ type: 'plan_approved', by: 'human' });
    b.move('a', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN', 'MERGE_STARTED');
    b.add({ type: 'merge_conflict', taskId: 'a', files: ['index.js'] });
    b.move('a', 'MERGE_CONFLICTED');
    const resolving = foldEvents(b.events)!;
    assert.deepEqual(attentionItems('/repo', summary({ status: 'running', runId: 'r', active: true }), resolving), [], 'its agent has it');
    const stopped = attentionItems('/repo', summary({ status: 'running', runId: 'r' }), resolving);
    assert.deepEqual(
      stopped.map((i) => [i.kind, i.label]),
      [['stopped', 'Run stopped: two tasks']],
      'with no engine driving it, the run itself waits for a Resume',
    );
    b.move('a', 'RESOLVE_STARTED', 'AGENT_FAILED');
    const state = foldEvents(b.events)!;
    const [item] = attentionItems('/repo', summary({ status: 'needs_human', runId: 'r' }), state);
    assert.deepEqual(item && [item.kind, item.label], ['conflict', 'Merge conflict: a']);
    assert.equal(taskContextValue(state.tasks.a!), 'task.NEEDS_HUMAN.can-retry.can-resolve.can-skip');
  });

  it('shows the newest line of the agent call under way, only while the run is driven', () => {
    const b = new EventBuilder();
    b.move('a', 'BUILD_STARTED');
    b.add({ type: 'agent_transcript', taskId: 'a', role: 'actor', attempt: 1, lines: [{ kind: 'tool', text: 'Bash: npm test', ms: 4000 }, { kind: 'tool', text: 'Bash: npm test', ms: 9000 }] });
    const task = foldEvents(b.events)!.tasks.a!;
    const open = openTranscript(task, true);
    assert.equal(open && transcriptLineWords(open.last!), 'Bash: npm test ×2');
    assert.equal(openTranscript(task, false), undefined, 'a run nobody drives has no call under way');
    const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
    b.add({ type: 'runner_call', taskId: 'a', role: 'actor', agent: 'scripted', model: 'm', status: 'ok', usage, durationMs: 9500, quotaHit: false, transcript: task.transcripts[0]!.seq });
    assert.equal(openTranscript(foldEvents(b.events)!.tasks.a!, true), undefined, 'the call ended');
    assert.equal(transcriptLineWords({ kind: 'text', text: 'a\u001b[31m red \n line', ms: 0 }), 'a red line');
  });
});
