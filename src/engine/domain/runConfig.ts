import type { Budgets } from './budget';
import type { OverlapMode } from './events';

/** Everything that decides how a run behaves. Recorded in `run_created`, so resume uses the same values. */
export interface RunConfig {
  maxParallel: number;
  /** Actor attempts allowed to fix a failing gate before the task needs a human. */
  maxGateFixAttempts: number;
  /** Critic "changes required" verdicts allowed before the task needs a human. */
  maxReviewCycles: number;
  /** Shell commands run in the task worktree; all must exit 0. Empty = no mechanical gate. */
  gateCommands: string[];
  gateTimeoutSeconds: number;
  /**
   * Commands the actor may run besides the gate's (each also with arguments), where the agent
   * can enforce a list (Claude Code). Absent in runs created before the list existed.
   */
  actorAllowedCommands?: string[];
  /** No output from an agent or gate for this long aborts the step (STUCK_ABORTED). */
  stuckThresholdSeconds: number;
  /** When the critic cannot be reached, end in UNVERIFIED_BY_CRITIC instead of NEEDS_HUMAN. */
  allowUnverified: boolean;
  /** Absent in runs created before budgets existed: no limit. */
  budgets?: Budgets;
  /**
   * What to do about tasks whose files hints overlap: run them one after the other (the later
   * starts from the integration branch holding the earlier), only warn, or nothing. Absent in
   * 0.1 runs, which never looked at the hints: 'off'.
   */
  overlap?: OverlapMode;
  agent: AgentConfig;
}

/** A model name per role; unset means the agent's own default. */
export interface RoleModels {
  planner?: string;
  actor?: string;
  critic?: string;
}

export type AgentConfig =
  | { kind: 'scripted'; scriptPath: string }
  | { kind: 'claude'; binaryPath: string; models: RoleModels }
  /** `configOverrides` are extra `-c key=value` settings, e.g. a model provider. */
  | { kind: 'codex'; binaryPath: string; models: RoleModels; configOverrides: string[] }
  /** Any CLI agent by argv template ({prompt_file}, {model}, {cwd}, {role}, {access}). */
  | { kind: 'command'; argv: string[]; models: RoleModels };

export type AgentKind = AgentConfig['kind'];

export const DEFAULT_RUN_CONFIG: Omit<RunConfig, 'gateCommands' | 'agent'> = {
  maxParallel: 2,
  maxGateFixAttempts: 3,
  maxReviewCycles: 3,
  gateTimeoutSeconds: 600,
  stuckThresholdSeconds: 300,
  allowUnverified: false,
  overlap: 'serialize',
};
