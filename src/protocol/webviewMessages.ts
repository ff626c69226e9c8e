// Messages between the run view webview (src/webview, browser code) and the extension,
// carried by postMessage. The webview folds `events` onto the last `state` with the engine's
// own pure projection, so it shows exactly what the tree and the CLI show.
import type { RunEvent } from '../engine/domain/events';
import type { TaskDecision } from '../engine/domain/runActions';
import type { Decision, RunState } from '../engine/domain/runState';
import type { PagedOut, RunHistories, TranscriptCallLines } from './runViewPages';

export type ToWebview =
  /**
   * The run; sent when the view opens, after a reload, and after an engine restart. `omitted`:
   * a first page (runViewPages.ts), without the histories and the older decisions.
   */
  | { type: 'state'; state: RunState; omitted?: PagedOut }
  /** New events after the last state or events message, in seq order. */
  | { type: 'events'; events: RunEvent[] }
  /** Whether an engine drives the run now: with none, a step under way was interrupted (it does not spin or grow). */
  | { type: 'driven'; driven: boolean }
  /** Whether the run's repository has the remote a pull request is pushed to: Open Pull Request is offered only then. */
  | { type: 'repository'; hasPullRequestRemote: boolean }
  /** Bring a task or a ledger entry into view (a deep link): its tab is selected, it is scrolled to and highlighted. */
  | ({ type: 'focus' } & RunViewFocus)
  /** Every decision, as of event `seq` (answers loadDecisions). */
  | { type: 'decisions'; seq: number; decisions: Decision[] }
  /** The tasks' histories, as of event `seq` (answers loadHistories). */
  | { type: 'histories'; seq: number; histories: RunHistories }
  /** The lines of agent calls' transcripts, as the log has them (answers loadTranscript). */
  | { type: 'transcript'; calls: TranscriptCallLines[] };

export type NextStep = 'resume' | 'treatAsAdvisory' | 'keepAsRequired' | 'cancelRun' | 'planAgain' | 'startWithPlan' | 'openRejectedPlan';

/** What a deep link lands on: a ledger entry by its seq, else a task (a seq wins when both are given). */
export interface RunViewFocus {
  taskId?: string;
  seq?: number;
}

export type FromWebview =
  /** The webview has loaded its script and wants the run. */
  | { type: 'ready' }
  /** The view has drawn the run as of `seq` after a `state` message (its first paint); tests and the benchmark wait on it. */
  | { type: 'rendered'; seq: number }
  /** Reveal the task in the Runs tree. */
  | { type: 'revealTask'; taskId: string }
  /** With `reviewSeq` (a critic entry of the ledger): the diff that review read, not today's. */
  /** `candidate`: that candidate's work (its branch against the task's start) instead of the task's. */
  | { type: 'showTaskDiff'; taskId: string; reviewSeq?: number; candidate?: number }
  /** A person's decision on a task; the extension runs the same command as the tree's inline action. */
  | { type: 'decideTask'; taskId: string; action: TaskDecision }
  /** Take another of the task's candidates: the extension lists them side by side (the command Choose Another Candidate…). */
  /** `candidate`: chosen on its card (no quick pick); absent: pick from the list. */
  | { type: 'chooseCandidate'; taskId: string; candidate?: number }
  /** On a plan waiting for approval. */
  | { type: 'decidePlan'; decision: 'approve' | 'edit' | 'cancel' }
  /** The plan as a document (descriptions, acceptance, predicted overlaps). */
  | { type: 'showPlanDocument' }
  /** On a completed run: apply its integration to the user's branch, or open its pull request. */
  | { type: 'deliver'; how: 'apply' | 'pullRequest' }
  /** On a plan waiting for approval with a task left incomplete: fill it in, or drop the task. */
  | { type: 'fixPlanTask'; taskId: string; fix: 'fill' | 'drop' }
  /**
   * On a stopped run, the step that works from where it stands (domain/resumeOutlook.ts): resume it;
   * when its base fails a command no runner explained, treat that as advisory, keep it as required,
   * or cancel the run;
   * when it never had an approved plan, plan its goal again, start again with its plan, or open
   * the plan planning rejected.
   */
  | { type: 'nextStep'; step: NextStep }
  /** A `focus` was carried out: `found` says whether the task or entry is in the run (tests wait on it). */
  | ({ type: 'focused'; found: boolean } & RunViewFocus)
  | { type: 'showIntegrationDiff' }
  /** Open the run's pull request (by its key: '' for the run's, else the task id of a stacked one) in the browser. */
  | { type: 'openPullRequest'; key: string }
  /** Put a task's worktree back as the actor snapshot of this ledger entry holds it (after the user agrees). */
  | { type: 'restoreSnapshot'; seq: number }
  /** Open the gate output of a decision (ledger entry) as a read-only document. */
  | { type: 'showGateOutput'; seq: number }
  /** The first page left decisions out and the view needs them all (a search). */
  | { type: 'loadDecisions' }
  /** The first page left the histories out and a tab shows them (timeline, transcripts). */
  | { type: 'loadHistories' }
  /** The lines of these calls' transcripts (TranscriptRecord.seq). */
  | { type: 'loadTranscript'; calls: number[] }
  /** The message box under a task's transcript: words for its actor (taskloom.sendMessageToTask). */
  | { type: 'sendToTask'; taskId: string; text: string };

/** What the webview keeps with setState so a reload restores the same run and the search text. */
export interface RunViewPersistedState {
  folder: string;
  runId: string;
  search?: string;
  tab?: 'graph' | 'ledger' | 'timeline' | 'usage' | 'transcript';
  /** The task whose transcript the Transcript tab shows ('' for the run's own calls). */
  transcriptTask?: string;
}
