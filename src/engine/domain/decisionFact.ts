import type { EventOf, RunEvent } from './events';
import type { CriticVerdict } from './verdict';

// What a ledger entry records: the facts of a decision, not its sentence. Each view words
// them with one function (text/decisionWords.ts) and colours them from their outcome.

/** Fields of event `T` kept as they are, under the event's own name. */
type FromEvent<T extends RunEvent['type'], K extends keyof EventOf<T>> = { type: T } & Pick<EventOf<T>, K>;

/** A failed command as the ledger keeps it: the lines of its output worth reading, not all of it. */
export interface FailedCommand {
  command: string;
  exitCode: number | null;
  timedOut: boolean;
  excerpt: string[];
}

/** What a gate's result rests on besides exit codes: the baseline, reruns, the selection, the cache. */
export interface GateJudgement {
  /** Failing tests that already failed on the base: not the task's. */
  alreadyFailing?: string[];
  /** Tests that failed, then passed alone. */
  flaky?: string[];
  /** Commands that failed and are advisory for this run (they fail on the base too). */
  advisory?: string[];
  /** How the tests were chosen, when not all of them ran. */
  selection?: string[];
  cachedFrom?: { taskId: string | null; attempt: number };
}

export type DecisionFact =
  | FromEvent<'run_created', 'goal' | 'plan' | 'baseCommit' | 'ignoredChanges'>
  | FromEvent<'plan_proposed', 'round' | 'plan'>
  | FromEvent<'plan_reviewed', 'round' | 'blocking' | 'verdict'>
  | FromEvent<'plan_approved', 'by'>
  | (FromEvent<'worktree_setup', 'copied' | 'copiedCount' | 'notIgnored' | 'cancelled'> & {
      commands: number;
      /** The command that ran when the setup was stopped. */
      lastCommand?: string;
      failed?: FailedCommand;
    })
  | FromEvent<'actor_snapshot', 'attempt' | 'commit' | 'ref'>
  | (FromEvent<'gate_result', 'passed' | 'attempt' | 'commit' | 'taskIds'> & {
      /** The integration's gate (no task's). */
      integration?: true;
      /** A passed gate's commands; a failed one names only the command that failed. */
      commands?: string[];
      failed?: FailedCommand;
    } & GateJudgement)
  | (FromEvent<'baseline_result', 'commit' | 'cached'> & {
      /** Commands that fail on the base, with the failing tests where the runner said which. */
      failing: { command: string; tests?: string[] }[];
      commands: number;
    })
  | FromEvent<'baseline_choice', 'commands' | 'choice' | 'bySetting'>
  | (FromEvent<'missed_regression', 'command' | 'taskIds'> & { tests: string[] })
  | FromEvent<'gate_skipped', 'attempt' | 'failedAttempt'>
  | (FromEvent<'candidate_finished', 'candidate' | 'passed' | 'failure'> & { failed?: FailedCommand })
  | FromEvent<'candidate_skipped', 'candidate' | 'reason'>
  | FromEvent<'candidate_picked', 'candidate' | 'by' | 'reasons' | 'passed'>
  | FromEvent<'critic_verdict', 'review' | 'verdict'>
  | FromEvent<'human_decision', 'action' | 'note'>
  | FromEvent<'run_applied', 'branch' | 'commit' | 'history' | 'commits'>
  | FromEvent<'confinement', 'mode' | 'confined' | 'mechanism' | 'reason'>
  | FromEvent<'run_issue', 'repo' | 'number' | 'author' | 'authorTrusted' | 'confirmedBy' | 'labelledBy' | 'usedComments' | 'leftOut'>
  | FromEvent<'run_paused', 'reason'>
  | FromEvent<'run_resumed', 'reason'>
  | FromEvent<'run_finished', 'status' | 'summary'>
  | FromEvent<'merge_queued', 'commit'>
  | FromEvent<'queue_batch', 'batch' | 'base' | 'taskIds'>
  | (FromEvent<'merge_done', 'commit'> & { how: 'merged' | 'already_merged' | 'no_changes'; into: string })
  | FromEvent<'merge_conflict', 'files'>
  | FromEvent<'queue_bisected', 'batch' | 'culprit' | 'merged' | 'requeued'>
  | FromEvent<'task_synced', 'integrationCommit' | 'conflicts'>
  | FromEvent<'overlaps_predicted', 'mode' | 'pairs'>
  | FromEvent<'overlap_detected', 'otherTaskId' | 'files'>
  | FromEvent<'pull_request', 'number' | 'action' | 'url' | 'head' | 'base'>
  | FromEvent<'pr_observed', 'number' | 'state' | 'headSha' | 'checks' | 'review' | 'mergeable'>
  | FromEvent<'pr_reaction_started', 'number' | 'reaction' | 'summary' | 'taskIds'>
  | FromEvent<'pr_reaction_resumed', 'number' | 'reaction' | 'reason'>
  | (FromEvent<'pr_fix_gated', 'number' | 'reaction' | 'attempt' | 'passed'> & { failed?: FailedCommand })
  | (FromEvent<'pr_fix_reviewed', 'number' | 'reaction'> & { verdict: Pick<CriticVerdict, 'decision' | 'summary'> })
  | FromEvent<'pr_fix_pushed', 'number' | 'reaction' | 'commit' | 'commits'>
  | FromEvent<'pr_reaction_finished', 'number' | 'reaction' | 'outcome' | 'reason'>
  | FromEvent<'pr_watch_ended', 'number' | 'outcome' | 'reason'>
  | FromEvent<'task_message', 'from' | 'text'>
  | (FromEvent<'task_message_delivered', 'how' | 'attempt'> & { from: string })
  | FromEvent<'task_stop_requested', 'by'>
  | FromEvent<'run_request_refused', 'kind' | 'taskId' | 'from' | 'why' | 'state'>
  | FromEvent<'pull_request_escalated', 'number' | 'red' | 'failing' | 'since' | 'afterMinutes'>
  | FromEvent<'pull_request_merged_by_taskloom', 'number' | 'method' | 'commit' | 'approvedBy'>
  | FromEvent<'pr_input_ignored', 'number' | 'input' | 'id' | 'author' | 'why' | 'association' | 'permission' | 'state' | 'path' | 'excerpt'>;

export type DecisionFactOf<T extends DecisionFact['type']> = Extract<DecisionFact, { type: T }>;
