import type { PullRequestRecord, RunState } from '../domain/runState';
import { isDone, isWaitingForHuman } from '../domain/taskStates';
import { counted } from './counted';

/** Marks Taskloom's one status comment on an issue, for the run `runId`: how it is found again, after a restart too. */
export function issueStatusMarker(runId: string): string {
  return `<!-- taskloom:issue-status run=${runId} -->`;
}

/** Where the run stands, in one line for the issue: planned / running n of m / needs you / paused and why / pull request opened / its end. */
export function issueStatusLine(state: RunState): string {
  const ids = state.taskOrder;
  const done = doneCount(state);
  const waiting = ids.filter((id) => isWaitingForHuman(state.tasks[id]!.state));
  const pullRequests = Object.values(state.pullRequests).filter((pr) => !pr.adopted);
  if (pullRequests.length) return pullRequestsLine(pullRequests);
  switch (state.status) {
    case 'planning':
      return state.taskOrder.length ? `Planned: ${counted(ids.length, 'task')}, waiting for approval` : 'Planning';
    case 'paused':
      // Nothing moves until it is resumed: "running" would be untrue. The reason stays in the
      // ledger: it can name this machine's paths (a sandbox failure), and the issue is public.
      return `Paused: waiting to be resumed, why is in the run's ledger (${done} of ${ids.length} done)`;
    case 'running':
    case 'integrating':
      if (waiting.length) return `Needs you: ${waiting.map((id) => `\`${id}\``).join(', ')} (running ${done} of ${ids.length})`;
      return `Running: ${done} of ${ids.length} tasks done`;
    case 'completed':
      return state.applied
        ? `Completed: ${counted(done, 'task')} done, applied to \`${state.applied.branch}\` (${state.applied.commit.slice(0, 10)})`
        : `Completed: ${counted(done, 'task')} done, not delivered yet`;
    case 'needs_human':
      return `Needs you: ${waiting.length ? waiting.map((id) => `\`${id}\``).join(', ') : 'the run stopped'} (${done} of ${ids.length} done)`;
    case 'cancelled':
      return 'Cancelled';
    case 'failed':
      return 'Failed';
  }
}

/** Where the run's pull requests (one, or a stack) stand: merged once all are, needs you when `watch` handed one to a person, else opened. */
function pullRequestsLine(pullRequests: PullRequestRecord[]): string {
  const named = (prs: PullRequestRecord[]) => prs.map((pr) => `#${pr.number} (${pr.url})`).join(', ');
  const merged = (pr: PullRequestRecord) => pr.mergedByTaskloom !== undefined || pr.observed?.state === 'merged';
  if (pullRequests.every(merged)) return `Merged: ${named(pullRequests)}`;
  const waiting = pullRequests.filter((pr) => !merged(pr) && pr.watch?.outcome === 'needs_human');
  if (waiting.length) return `Needs you: pull ${waiting.length === 1 ? 'request' : 'requests'} ${named(waiting)}`;
  return `Pull ${pullRequests.length === 1 ? 'request' : 'requests'} opened: ${named(pullRequests)}`;
}

/** The whole comment: the marker, the status and where its decisions are recorded. */
export function issueStatusComment(state: RunState): string {
  return [
    issueStatusMarker(state.runId),
    `**Taskloom** · run \`${state.runId}\` · ${issueStatusLine(state)}`,
    '',
    `<sub>This comment is edited in place as the run moves; every decision is in \`.taskloom/runs/${state.runId}/DECISIONS.md\`.</sub>`,
  ].join('\n');
}

/** The comment's last words once the run was discarded: its record, named before, is gone, and nothing moves it any more. */
export function issueDiscardedComment(state: RunState): string {
  const done = doneCount(state);
  const delivered = state.applied ? `, after it was applied to \`${state.applied.branch}\`` : '';
  return [
    issueStatusMarker(state.runId),
    `**Taskloom** · run \`${state.runId}\` · Discarded${delivered}: ${done} of ${counted(state.taskOrder.length, 'task')} were done; the run and its record were removed`,
  ].join('\n');
}

const doneCount = (state: RunState): number => state.taskOrder.filter((id) => isDone(state.tasks[id]!.state)).length;
