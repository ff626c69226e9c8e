import type { HumanAction } from './events';
import { humanActionRefusal, type HumanActionRefusal } from './humanActions';
import { planTaskFindings, type PlanTaskFinding } from './planFindings';
import type { ResumeOutlook } from './resumeOutlook';
import { isStoppedPhase, runPhase, stoppedRunOutlook, type RunPhase } from './runPhase';
import type { RunState, RunStatus, TaskView } from './runState';
import { isInFlight } from './taskStates';

/**
 * What is known of a run when an action on it is offered or carried out: the tree's rows, the Needs
 * You view, the run view's buttons, the notifications' buttons and the commands all decide from
 * these facts with the rules below, so an action is offered exactly where it would work.
 */
export interface RunFacts {
  status: RunStatus;
  /** An engine plans or drives the run now. */
  driven: boolean;
  /** The run's state once loaded; a row listed before that is decided by its status alone (the engine answers the rest). */
  state?: RunState;
  /** From the run's listing, for a run whose state is not loaded: its tasks, those neither merged nor skipped (what a Resume would take up), and whether its plan was approved. */
  total: number;
  unfinished: number;
  planApproved: boolean;
  /** The repository has the remote a pull request is pushed to; undefined when not known. */
  hasRemote?: boolean;
}

/** What a person can do to a run. */
export const RUN_ACTIONS = ['approvePlan', 'editPlan', 'rejectPlan', 'resume', 'treatAsAdvisory', 'keepAsRequired', 'cancel', 'apply', 'openPullRequest', 'integrationDiff', 'discard'] as const;
export type RunAction = (typeof RUN_ACTIONS)[number];

/** Why an action does not apply to the run now, as data: the text module words it (engine/text/actionWords.ts). */
export type RunRefusal =
  | { kind: 'plan_approved' }
  /** Tasks the planner left incomplete: filled in or dropped first (domain/planFindings.ts). */
  | { kind: 'plan_incomplete'; findings: PlanTaskFinding[] }
  | { kind: 'cancelled' }
  | { kind: 'being_planned' }
  | { kind: 'driven' }
  | { kind: 'phase'; phase: RunPhase }
  | { kind: 'applied'; branch: string; commit: string }
  | { kind: 'no_remote' }
  | { kind: 'has_pull_request'; number: number }
  | { kind: 'no_integration' }
  | { kind: 'resume'; outlook: Exclude<ResumeOutlook, { kind: 'works' }> }
  /** Treat as advisory, keep as required: nothing on the run's base waits for that choice. */
  | { kind: 'no_baseline_choice' };

export const phaseOf = (run: RunFacts): RunPhase => runPhase(run.status, run.driven, run.state);

/**
 * What Resume would do for a stopped run (runPhase.ts's stoppedRunOutlook), or undefined while
 * nobody may resume it. Without its state the listing decides: a plan never approved is started
 * again, else the engine answers with a clear error if there is nothing to drive.
 */
export function resumeOutlookOfRun(run: RunFacts): ResumeOutlook | undefined {
  if (run.state) return stoppedRunOutlook(run.state, run.driven);
  if (!isStoppedPhase(phaseOf(run))) return undefined;
  if (!run.planApproved) return { kind: 'startAgain', why: 'its plan was never approved', withPlan: run.total > 0 };
  return { kind: 'works', tasks: run.unfinished };
}

/**
 * The gate commands that fail on a stopped run's base where no runner said which tests, while the
 * user has not chosen about them: the run waits for them to be treated as advisory or kept as
 * required, or for the run to be cancelled.
 */
export function baselineChoiceOf(run: RunFacts): string[] | undefined {
  const outlook = resumeOutlookOfRun(run);
  return outlook?.kind === 'choosesBaseline' ? outlook.commands : undefined;
}

/** Why `action` does not apply to the run now; undefined when it does. */
export function runActionRefusal(action: RunAction, run: RunFacts): RunRefusal | undefined {
  const phase = phaseOf(run);
  const { state } = run;
  switch (action) {
    case 'approvePlan':
    case 'editPlan':
    case 'rejectPlan':
      if (state?.planApproved) return { kind: 'plan_approved' };
      if (run.status === 'cancelled') return { kind: 'cancelled' };
      if (phase === 'planning') return { kind: 'being_planned' };
      if (phase !== 'awaitingApproval') return { kind: 'phase', phase };
      if (action !== 'approvePlan' || !state) return undefined;
      const findings = planTaskFindings(state.plan);
      return findings.length ? { kind: 'plan_incomplete', findings } : undefined;
    case 'cancel':
      // A run paused for the base's failures is stopped for good on the user's word: the third answer to that choice.
      if (run.driven || (run.status === 'paused' && baselineChoiceOf(run))) return undefined;
      return run.status === 'cancelled' ? { kind: 'cancelled' } : { kind: 'phase', phase };
    case 'resume': {
      if (run.driven) return { kind: 'driven' };
      const outlook = resumeOutlookOfRun(run);
      if (!outlook) return { kind: 'phase', phase };
      return outlook.kind === 'works' ? undefined : { kind: 'resume', outlook };
    }
    case 'treatAsAdvisory':
    case 'keepAsRequired':
      if (run.driven) return { kind: 'driven' };
      return baselineChoiceOf(run) ? undefined : { kind: 'no_baseline_choice' };
    case 'apply':
    case 'openPullRequest': {
      if (run.driven) return { kind: 'driven' };
      if (run.status !== 'completed') return run.status === 'cancelled' ? { kind: 'cancelled' } : { kind: 'phase', phase };
      if (action === 'apply') return state?.applied ? { kind: 'applied', branch: state.applied.branch, commit: state.applied.commit } : undefined;
      if (run.hasRemote === false) return { kind: 'no_remote' };
      const opened = Object.values(state?.pullRequests ?? {})[0];
      return opened ? { kind: 'has_pull_request', number: opened.number } : undefined;
    }
    case 'integrationDiff':
      return run.status === 'completed' || state?.integration.branch ? undefined : { kind: 'no_integration' };
    case 'discard':
      return run.driven ? { kind: 'driven' } : undefined;
  }
}

export const allowedRunActions = (run: RunFacts): RunAction[] => RUN_ACTIONS.filter((action) => runActionRefusal(action, run) === undefined);

/**
 * What a person can do to a task: a decision, a hand back (the decision `continue` on a task they
 * stopped or took over; `continue` itself finishes a resolution by hand), stop its work, take it
 * over in its worktree, or a look at its work.
 */
export type TaskAction = HumanAction | 'handBack' | 'stop' | 'takeOver' | 'diff' | 'openWorktree';
export const TASK_ACTIONS: readonly TaskAction[] = ['retry', 'resolve', 'continue', 'handBack', 'accept', 'skip', 'stop', 'takeOver', 'diff', 'openWorktree'];

/** What a person does to a task, as against a look at its work: what the run view's task buttons offer. */
export type TaskDecision = Exclude<TaskAction, 'diff' | 'openWorktree'>;
export const TASK_DECISIONS: readonly TaskDecision[] = ['retry', 'resolve', 'continue', 'handBack', 'accept', 'skip', 'stop', 'takeOver'];

/** `not_at_work`: only work under way is stopped, and taken over (besides a task that waits for a person). */
export type TaskRefusal = HumanActionRefusal | { kind: 'not_started' } | { kind: 'no_worktree' } | { kind: 'not_at_work' };

/** What the rules read of a task: no part of its history, which the run view's first page leaves out (protocol/runViewPages.ts). */
export type ActionableTask = Pick<TaskView, 'id' | 'state' | 'queueProblem' | 'changedFiles' | 'skippedByDependency' | 'startedAt' | 'branch' | 'worktreePath' | 'withPerson'>;

/** Why `action` does not apply to the task now; undefined when it does. */
export function taskActionRefusal(action: TaskAction, task: ActionableTask): TaskRefusal | undefined {
  switch (action) {
    case 'continue':
    case 'handBack':
      // One decision, two names: the one that says what it does to the task in its state.
      if ((task.state === 'NEEDS_HUMAN') !== (action === 'handBack')) return { kind: 'state' };
      return humanActionRefusal(task, 'continue');
    case 'stop':
      return isInFlight(task.state) ? undefined : { kind: 'not_at_work' };
    case 'takeOver':
      if (!isInFlight(task.state) && task.state !== 'NEEDS_HUMAN') return { kind: 'not_at_work' };
      return task.worktreePath ? undefined : { kind: 'no_worktree' };
    case 'diff':
      // A task that never started has no commits of its own to show.
      return task.startedAt && task.branch ? undefined : { kind: 'not_started' };
    case 'openWorktree':
      return task.worktreePath ? undefined : { kind: 'no_worktree' };
    default:
      return humanActionRefusal(task, action);
  }
}

export const allowedTaskActions = (task: ActionableTask): TaskAction[] => TASK_ACTIONS.filter((action) => taskActionRefusal(action, task) === undefined);
