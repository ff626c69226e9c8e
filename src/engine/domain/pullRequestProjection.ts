import type { EventOf } from './events';
import { decide, failureLines } from './decisionLedger';
import { checksWords, REVIEW_WORDS } from './pullRequestStatus';
import type { PullRequestReaction, PullRequestRecord, RunState } from './runState';
import { counted } from '../text/counted';

type PullRequestEventType =
  | 'pull_request'
  | 'pr_observed'
  | 'pr_reaction_started'
  | 'pr_reaction_resumed'
  | 'pr_fix_gated'
  | 'pr_fix_reviewed'
  | 'pr_fix_pushed'
  | 'pr_replied'
  | 'pr_reaction_finished'
  | 'pr_watch_ended';

type PullRequestHandlers = { [T in PullRequestEventType]: (state: RunState, event: EventOf<T>) => void };

/** The projection of a run's pull requests and of what `watch` saw and did on them. */
export const PULL_REQUEST_HANDLERS: PullRequestHandlers = {
  pull_request(state, e) {
    const key = e.taskId ?? '';
    const before = state.pullRequests[key];
    const same = before?.number === e.number;
    state.pullRequests[key] = { number: e.number, url: e.url, head: e.head, base: e.base, repo: e.repo, remote: e.remote, reactions: same ? before.reactions : [], ...(same && before.observed ? { observed: before.observed } : {}) };
    const whose = e.taskId ? ` for "${e.taskId}"` : '';
    decide(state, e, 'pull_request', `Pull request #${e.number}${whose} ${e.action}: ${e.url} (${e.head} → ${e.base})`, undefined, e.taskId ?? undefined);
  },
  pr_observed(state, e) {
    const pr = pullRequestOf(state, e.number);
    const { type: _type, seq: _seq, runId: _runId, v: _v, ...observed } = e;
    pr.observed = observed;
    const checks = checksWords(e.checks);
    const review = REVIEW_WORDS[e.review];
    const merge = e.mergeable === false ? '; conflicts with its base' : '';
    decide(state, e, 'pull_request', `Pull request #${e.number} is ${e.state} at ${e.headSha.slice(0, 10)}: ${checks}; ${review}${merge}`);
  },
  pr_reaction_started(state, e) {
    const pr = pullRequestOf(state, e.number);
    pr.reactions.push({ id: e.reaction, kind: e.kind, signals: e.signals, headSha: e.headSha, taskIds: e.taskIds, summary: e.summary, status: 'running', replied: [] });
    const who = e.taskIds.map((id) => (id === null ? 'the integration' : `"${id}"`)).join(', ');
    decide(state, e, 'pull_request', `Pull request #${e.number}, reaction ${e.reaction}: ${e.summary} (fixed by the actor of ${who})`);
  },
  pr_reaction_resumed(state, e) {
    decide(state, e, 'pull_request', `Pull request #${e.number}, reaction ${e.reaction} taken up again: ${e.reason}`);
  },
  pr_fix_gated(state, e) {
    reactionOf(state, e.number, e.reaction).gate = { passed: e.passed, commands: e.commands };
    const failed = e.commands.find((c) => c.exitCode !== 0);
    const what = e.passed ? 'passed' : `failed: \`${failed?.command ?? '?'}\` ${failed?.timedOut ? 'timed out' : `exited ${failed?.exitCode}`}`;
    decide(state, e, 'gate', `Gate on the fix for pull request #${e.number} (reaction ${e.reaction}, attempt ${e.attempt}) ${what}`, failed ? failureLines(failed) : undefined);
  },
  pr_fix_reviewed(state, e) {
    reactionOf(state, e.number, e.reaction);
    const verdict = e.verdict.decision === 'green' ? 'green' : 'changes required';
    decide(state, e, 'critic', `Critic review of the fix for pull request #${e.number} (reaction ${e.reaction}): ${verdict} — ${e.verdict.summary}`);
  },
  pr_fix_pushed(state, e) {
    const reaction = reactionOf(state, e.number, e.reaction);
    reaction.pushed = { commit: e.commit, commits: e.commits };
    decide(state, e, 'pull_request', `Pull request #${e.number}, reaction ${e.reaction}: pushed ${counted(e.commits, 'commit')}, now at ${e.commit.slice(0, 10)}`);
  },
  pr_replied(state, e) {
    reactionOf(state, e.number, e.reaction).replied.push(e.commentId);
  },
  pr_reaction_finished(state, e) {
    const reaction = reactionOf(state, e.number, e.reaction);
    reaction.status = e.outcome;
    reaction.reason = e.reason;
    decide(state, e, 'pull_request', `Pull request #${e.number}, reaction ${e.reaction} ${e.outcome === 'pushed' ? 'done' : 'failed'}: ${e.reason}`);
  },
  pr_watch_ended(state, e) {
    pullRequestOf(state, e.number).watch = { outcome: e.outcome, reason: e.reason, at: e.at };
    const how = { green: 'is green', merged: 'was merged', needs_human: 'needs you' }[e.outcome];
    decide(state, e, 'pull_request', `Pull request #${e.number} ${how}: ${e.reason}`);
  },
};

function pullRequestOf(state: RunState, number: number): PullRequestRecord {
  const pr = Object.values(state.pullRequests).find((p) => p.number === number);
  if (!pr) throw new Error(`event about pull request #${number}, which the run never opened`);
  return pr;
}

function reactionOf(state: RunState, number: number, id: number): PullRequestReaction {
  const reaction = pullRequestOf(state, number).reactions.find((r) => r.id === id);
  if (!reaction) throw new Error(`event about reaction ${id} of pull request #${number}, which never started`);
  return reaction;
}
