import type { DecisionFact, DecisionFactOf, FailedCommand, GateJudgement } from '../domain/decisionFact';
import type { Plan } from '../domain/plan';
import { checksWords, MERGE_METHOD_WORDS, REVIEW_WORDS } from './pullRequestWords';
import type { Decision } from '../domain/runState';
import { RUN_STATUS_WORDS } from '../domain/stateWords';
import type { CriticVerdict } from '../domain/verdict';
import { appliedAs } from './applyWords';
import { confinementWords } from './confinementWords';
import { candidateDecisionWords } from './candidateWords';
import { counted } from './counted';
import { unchangedTreeWords } from './gateWords';
import { runIssueWords } from './issueWords';
import { deliveryWords, refusedRequestWords } from './messageWords';

// The one wording of a ledger entry, for every view: the run view's ledger, DECISIONS.md, the CLI.

export interface DecisionWords {
  summary: string;
  details: string[];
}

const short = (commit: string): string => commit.slice(0, 10);

const failedWords = (failed: FailedCommand | undefined): string =>
  `failed: \`${failed?.command ?? '?'}\` ${failed?.timedOut ? 'timed out' : `exited ${failed?.exitCode}`}`;

const findingLines = (verdict: CriticVerdict): string[] =>
  verdict.findings.map((f) => `[${f.severity}/${f.category}] ${f.file ? `${f.file}${f.line ? `:${f.line}` : ''}: ` : ''}${f.message}`);

const verdictWords = (decision: CriticVerdict['decision']): string => (decision === 'green' ? 'green' : 'changes required');

function planLines(plan: Plan): string[] {
  const details = plan.tasks.map((t) => `${t.id}: ${t.title}${t.dependsOn.length ? ` (after ${t.dependsOn.join(', ')})` : ''}`);
  if (plan.rationale) details.unshift(`Why: ${plan.rationale}`);
  return details;
}

const IGNORED_INPUT_WORDS = { review: 'the review', review_comment: 'the review comment', comment: 'the comment', check: 'the output of the failing check' } as const;

/** "the review (changes requested) by mallory: no write access (NONE, permission none)": what `watch` left alone, from whom, and why. */
export function ignoredInputWords(i: Pick<DecisionFactOf<'pr_input_ignored'>, 'input' | 'author' | 'why' | 'association' | 'permission' | 'state' | 'path'>): string {
  const state = i.state ? ` (${i.state.replace('_', ' ')})` : '';
  const where = i.path ? ` on ${i.path}` : '';
  const said = [i.association, i.permission ? `permission ${i.permission}` : ''].filter(Boolean).join(', ');
  const why = {
    no_write_access: `no write access${said ? ` (${said})` : ''}`,
    untrusted_bot: 'a bot not in taskloom.pullRequests.trustedBots',
    fork_check: 'it ran on a fork, whose output is not handed to an agent',
  }[i.why];
  return i.input === 'check' ? `${IGNORED_INPUT_WORDS.check}${where} from ${i.author}: ${why}` : `${IGNORED_INPUT_WORDS[i.input]}${state}${where} by ${i.author}: ${why}`;
}

/**
 * The command lines that act on an entry, for the views that are read in a terminal or a file (the
 * CLI, DECISIONS.md); the run view offers the same as buttons instead (a snapshot's Restore).
 */
export function decisionCommands(d: Pick<Decision, 'fact'>): string[] {
  if (d.fact.type !== 'actor_snapshot') return [];
  const { commit } = d.fact;
  return [`Restore, in the task worktree: git checkout ${commit} -- .`, `What changed since: git diff --stat ${commit}`];
}

export function wordDecision(d: Pick<Decision, 'fact' | 'taskId'>): DecisionWords {
  const { summary, details = [] } = wordFact(d.fact, d.taskId ?? '');
  return { summary, details };
}

function wordFact(f: DecisionFact, taskId: string): { summary: string; details?: string[] } {
  switch (f.type) {
    case 'run_created': {
      const details = f.plan.tasks.length ? planLines(f.plan) : [];
      if (f.ignoredChanges.length) details.push(`Uncommitted changes ignored (the run works from ${short(f.baseCommit)}): ${f.ignoredChanges.join(', ')}`);
      return { summary: f.plan.tasks.length ? `Plan for "${f.goal}": ${counted(f.plan.tasks.length, 'task')}` : `Planning "${f.goal}"`, details };
    }
    case 'plan_proposed':
      return { summary: `Planner draft ${f.round}: ${counted(f.plan.tasks.length, 'task')}`, details: planLines(f.plan) };
    case 'plan_reviewed': {
      const verdict = f.blocking ? `changes required (${f.blocking} blocking)` : 'approved';
      return { summary: `Critic review of plan draft ${f.round}: ${verdict} — ${f.verdict.summary}`, details: findingLines(f.verdict) };
    }
    case 'plan_approved':
      return { summary: `Plan approved by ${f.by}` };
    case 'worktree_setup':
      return wordSetup(f);
    case 'actor_snapshot':
      return {
        summary: `Snapshot before attempt ${f.attempt}: ${short(f.commit)}`,
        details: [`Kept as ${f.ref}: restoring it puts back the files the attempt changed or deleted in the task worktree; files created since stay.`],
      };
    case 'gate_result': {
      const what = f.passed ? `passed (${f.commands?.join(', ') || 'no commands'})` : failedWords(f.failed);
      const details = [...judgementLines(f), ...(f.failed?.excerpt ?? [])];
      const cached = f.cachedFrom ? ` — cached (${cachedFromWords(f.cachedFrom)})` : '';
      if (!f.integration) return { summary: `Gate ${what} on attempt ${f.attempt}${cached}`, details };
      const on = f.commit ? ` on ${f.taskIds?.length ? f.taskIds.join(', ') : 'the integration branch'} (${short(f.commit)})` : '';
      return { summary: `Integration gate ${what}${on}${cached}`, details };
    }
    case 'baseline_result': {
      const how = `${f.cached ? 'cached: ' : ''}the gate on the base (${short(f.commit)})`;
      if (f.failing.length === 0) return { summary: `Baseline: ${how} passes` };
      const details = f.failing.map((c) => (c.tests ? `\`${c.command}\`: already failing on the base: ${c.tests.join(', ') || 'no test named'}` : `\`${c.command}\` fails on the base; no runner said which tests`));
      return { summary: `Baseline: ${how} fails ${counted(f.failing.length, 'command')} of ${f.commands} before any task changed anything`, details };
    }
    case 'baseline_choice': {
      const who = f.bySetting ? 'taskloom.gate.onBaseFailure treats' : 'Human chose to treat';
      const what = f.choice === 'advisory' ? 'as advisory for this run (it fails on the base too)' : 'as required: a check of work still to be done, which the tasks must make pass';
      return { summary: `${who} ${f.commands.map((c) => `\`${c}\``).join(', ')} ${what}` };
    }
    case 'missed_regression':
      return { summary: `Missed regression: the integration gate found ${counted(f.tests.length, 'new failure')} of \`${f.command}\` that the task gates of ${f.taskIds.join(', ') || 'the batch'} did not run`, details: f.tests };
    case 'gate_skipped':
      return { summary: `Gate not run: ${unchangedTreeWords(f.attempt, f.failedAttempt)}, so that failure stands` };
    case 'candidate_finished':
    case 'candidate_skipped':
    case 'candidate_picked':
      return candidateDecisionWords(f);
    case 'critic_verdict':
      return { summary: `Critic review ${f.review}: ${verdictWords(f.verdict.decision)} — ${f.verdict.summary}`, details: findingLines(f.verdict) };
    case 'human_decision': {
      const what = { retry: 'retry', accept: 'accept', skip: 'skip', resolve: 'resolve by hand', continue: 'continue after resolving by hand' }[f.action];
      return { summary: `Human chose to ${what} "${taskId}"${f.note ? `: ${f.note}` : ''}` };
    }
    case 'task_message':
      return { summary: `Message from ${f.from} for "${taskId}"`, details: f.text.split('\n') };
    case 'task_message_delivered':
      return { summary: `"${taskId}": ${deliveryWords(f.how, f.from, f.attempt)}` };
    case 'task_stop_requested':
      return { summary: `${f.by} asked to stop "${taskId}"` };
    case 'run_request_refused':
      return { summary: `"${f.taskId}": ${refusedRequestWords(f)}` };
    case 'run_applied': {
      return { summary: `Applied to ${f.branch} as ${appliedAs(f.history, f.commits)}: now at ${short(f.commit)}` };
    }
    case 'confinement':
      return { summary: confinementWords(f) };
    case 'run_issue':
      return runIssueWords(f);
    case 'run_paused':
      return { summary: `Run paused: ${f.reason}` };
    case 'run_resumed':
      return { summary: `Run resumed: ${f.reason}` };
    case 'run_finished':
      return { summary: `Run ${RUN_STATUS_WORDS[f.status]}: ${f.summary}` };
    default:
      return wordIntegrationFact(f, taskId);
  }
}

const cachedFromWords = (from: { taskId: string | null; attempt: number }): string =>
  `same tree as ${from.taskId === null ? `integration batch ${from.attempt}` : `"${from.taskId}" attempt ${from.attempt}`}`;

/** What a gate's result rests on besides the exit codes, one line each. */
function judgementLines(f: GateJudgement): string[] {
  const lines: string[] = [];
  if (f.alreadyFailing?.length) lines.push(`Already failing on the base (not this change's): ${f.alreadyFailing.join(', ')}`);
  if (f.flaky?.length) lines.push(`Flaky (failed, then passed alone): ${f.flaky.join(', ')}`);
  if (f.advisory?.length) lines.push(`Advisory for this run (fails on the base too): ${f.advisory.map((c) => `\`${c}\``).join(', ')}`);
  for (const selection of f.selection ?? []) lines.push(`Only what the change can affect — ${selection}`);
  return lines;
}

function wordSetup(f: Extract<DecisionFact, { type: 'worktree_setup' }>): { summary: string; details: string[] } {
  const copied = f.copiedCount ? `${counted(f.copiedCount, 'untracked file')} copied in` : '';
  const ran = f.commands ? counted(f.commands, 'command') : '';
  let outcome: string;
  if (f.cancelled) outcome = `stopped while \`${f.lastCommand ?? 'setup'}\` ran; it runs again`;
  else if (f.failed) outcome = failedWords(f.failed);
  else outcome = [copied, ran && `${ran} passed`].filter(Boolean).join(', ') || 'nothing to do';
  const stopped = f.failed !== undefined || f.cancelled === true;
  const details: string[] = [];
  if (f.copied.length) details.push(`Copied: ${f.copied.join(', ')}${f.copiedCount > f.copied.length ? ` and ${f.copiedCount - f.copied.length} more` : ''}`);
  if (f.notIgnored.length) details.push(`Not copied, as git does not ignore them in the worktree (they would be committed): ${f.notIgnored.join(', ')}`);
  if (f.failed && !f.cancelled) details.push(...f.failed.excerpt);
  return { summary: `Worktree setup ${stopped ? outcome : `done: ${outcome}`}${stopped && copied ? ` (${copied})` : ''}`, details };
}

type IntegrationFact = Exclude<
  DecisionFact,
  {
    type:
      | 'run_created'
      | 'plan_proposed'
      | 'plan_reviewed'
      | 'plan_approved'
      | 'worktree_setup'
      | 'actor_snapshot'
      | 'gate_result'
      | 'baseline_result'
      | 'baseline_choice'
      | 'missed_regression'
      | 'gate_skipped'
      | 'candidate_finished'
      | 'candidate_skipped'
      | 'candidate_picked'
      | 'critic_verdict'
      | 'human_decision'
      | 'task_message'
      | 'task_message_delivered'
      | 'task_stop_requested'
      | 'run_request_refused'
      | 'run_applied'
      | 'confinement'
      | 'run_issue'
      | 'run_paused'
      | 'run_resumed'
      | 'run_finished';
  }
>;

/** The merge queue's, the overlaps' and the pull requests' entries. */
function wordIntegrationFact(f: IntegrationFact, taskId: string): { summary: string; details?: string[] } {
  switch (f.type) {
    case 'merge_queued':
      return { summary: `"${taskId}" queued for merge at ${short(f.commit)}` };
    case 'queue_batch':
      return { summary: `Merge queue batch ${f.batch}: ${f.taskIds.join(', ')} onto ${short(f.base)}` };
    case 'merge_done': {
      const how = { merged: `merged as ${short(f.commit)}`, already_merged: 'was already merged', no_changes: 'had no changes to merge' }[f.how];
      return { summary: `"${taskId}" ${how} into ${f.into}` };
    }
    case 'merge_conflict':
      return { summary: `Merging "${taskId}" conflicts in ${f.files.join(', ')}` };
    case 'queue_bisected': {
      const kept = f.merged.length ? `; ${f.merged.join(', ')} stay merged` : '';
      const back = f.requeued.length ? `; ${f.requeued.join(', ')} go back to the queue` : '';
      return { summary: `Bisected batch ${f.batch}: merging "${f.culprit}" fails the integration gate${kept}${back}` };
    }
    case 'task_synced': {
      const what = f.conflicts.length ? `conflicts in ${f.conflicts.join(', ')} to resolve` : 'merged cleanly';
      return { summary: `"${taskId}" took in integration ${short(f.integrationCommit)}: ${what}` };
    }
    case 'overlaps_predicted': {
      const how = f.mode === 'serialize' ? 'run one after the other' : 'run side by side (warn only)';
      return {
        summary: `${counted(f.pairs.length, 'overlap')} predicted from the files hints; they ${how}`,
        details: f.pairs.map((p) => `${p.second} after ${p.first}: both touch ${p.files.join(', ')}`),
      };
    }
    case 'overlap_detected':
      return { summary: `"${taskId}" changed ${f.files.join(', ')}, also changed by "${f.otherTaskId}"` };
    case 'pull_request':
      if (f.action === 'adopted') return { summary: `Keeping pull request #${f.number} green, a branch Taskloom did not open: ${f.url} (${f.head} → ${f.base})` };
      return { summary: `Pull request #${f.number}${taskId ? ` for "${taskId}"` : ''} ${f.action}: ${f.url} (${f.head} → ${f.base})` };
    case 'pr_observed': {
      const merge = f.mergeable === false ? '; conflicts with its base' : '';
      return { summary: `Pull request #${f.number} is ${f.state} at ${short(f.headSha)}: ${checksWords(f.checks)}; ${REVIEW_WORDS[f.review]}${merge}` };
    }
    case 'pr_reaction_started': {
      const who = f.taskIds.map((id) => (id === null ? 'the integration' : `"${id}"`)).join(', ');
      return { summary: `Pull request #${f.number}, reaction ${f.reaction}: ${f.summary} (fixed by the actor of ${who})` };
    }
    case 'pr_reaction_resumed':
      return { summary: `Pull request #${f.number}, reaction ${f.reaction} taken up again: ${f.reason}` };
    case 'pr_fix_gated':
      return { summary: `Gate on the fix for pull request #${f.number} (reaction ${f.reaction}, attempt ${f.attempt}) ${f.passed ? 'passed' : failedWords(f.failed)}`, details: f.failed?.excerpt };
    case 'pr_fix_reviewed':
      return { summary: `Critic review of the fix for pull request #${f.number} (reaction ${f.reaction}): ${verdictWords(f.verdict.decision)} — ${f.verdict.summary}` };
    case 'pr_fix_pushed':
      return { summary: `Pull request #${f.number}, reaction ${f.reaction}: pushed ${counted(f.commits, 'commit')}, now at ${short(f.commit)}` };
    case 'pr_reaction_finished':
      return { summary: `Pull request #${f.number}, reaction ${f.reaction} ${f.outcome === 'pushed' ? 'done' : 'failed'}: ${f.reason}` };
    case 'pr_watch_ended': {
      const how = { green: 'is green', merged: 'was merged', needs_human: 'needs you' }[f.outcome];
      return { summary: `Pull request #${f.number} ${how}: ${f.reason}` };
    }
    case 'pull_request_escalated': {
      const what = f.red === 'conflict' ? 'conflicting with its base' : `failing: ${f.failing.join(', ')}`;
      return { summary: `Pull request #${f.number} escalated: red for ${counted(f.afterMinutes, 'minute')} or more with no progress (${what}, since ${f.since})` };
    }
    case 'pull_request_merged_by_taskloom':
      return { summary: `Pull request #${f.number} merged by Taskloom (${MERGE_METHOD_WORDS[f.method]}, approved by ${f.approvedBy.join(', ')}): ${short(f.commit)}` };
    case 'pr_input_ignored':
      return { summary: `Pull request #${f.number}: ignored ${ignoredInputWords(f)}`, ...(f.excerpt ? { details: [`It said: ${f.excerpt}`] } : {}) };
  }
}
