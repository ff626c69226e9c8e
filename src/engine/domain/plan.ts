import type { AgentKind } from './runConfig';

/** A unit of work: one branch, one worktree, one actor/gate/critic loop. */
export interface PlanTask {
  id: string;
  title: string;
  description: string;
  acceptance: string[];
  dependsOn: string[];
  files?: string[];
  /**
   * Sensitive paths (domain/sensitivePaths.ts) the task is meant to change, as paths or glob
   * patterns: once a human approved the plan, changes to them do not wait for a human again.
   */
  sensitive?: string[];
  /** This task's actor, when it is not the run's (e.g. a cheaper model for a simple task). */
  agent?: AgentKind;
  model?: string;
  /** How many candidates this task runs at once (run/candidates.ts); else the run's number. */
  candidates?: number;
}

/** What the planner (or the user) hands the engine. Validated by `parsePlan` in engine/plan. */
export interface Plan {
  goal: string;
  rationale?: string;
  tasks: PlanTask[];
}
