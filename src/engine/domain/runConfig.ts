import type { Budgets } from './budget';
import type { CandidatesConfig } from './candidates';
import type { AgentRole, OverlapMode } from './events';
import type { SandboxSettings } from './sandboxSettings';

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
  /** How each new worktree is made ready, and where worktrees live. Absent in runs before it existed: nothing copied or run, inside the repository. */
  worktree?: WorktreeConfig;
  /**
   * Glob patterns of the paths a task's change may touch only with a human's approval or the plan's
   * (`taskloom.sensitivePaths`). Absent in runs created before the list existed: DEFAULT_SENSITIVE_PATHS.
   */
  sensitivePaths?: string[];
  /** The default agent (`taskloom.agent`, `--agent`); in runs before roles existed, every role's. */
  agent: AgentConfig;
  /** Each role's agent and model. Absent in runs before 0.2: every role uses `agent` with its `models`. */
  roles?: Record<AgentRole, RoleAgent>;
  /** Every agent the run can call, by kind: the roles' agents and those a plan task may name. */
  agents?: Partial<Record<AgentKind, AgentConfig>>;
  /** Where its processes may read, write and connect. Absent in runs before confinement: the defaults (mode auto). */
  sandbox?: SandboxSettings;
  /** How the gate judges a change (`taskloom.gate.*`). Absent in runs before it existed: every test, no baseline, no reruns. */
  gate?: GateConfig;
  /** Candidates per task and their actors (`taskloom.candidates.*`). Absent in runs before candidates, and with one: one try per task. */
  candidates?: CandidatesConfig;
}

/** `taskloom.gate.*` (`--no-baseline`, `--no-affected-only`, `--flaky-reruns`). */
export interface GateConfig {
  /** Gate the run's base first, and hold a task only for failures that are new. */
  baseline: boolean;
  /** At a task's gate, run only the tests its change can affect (the integration gate runs all). */
  affectedOnly: boolean;
  /** How many times a gate may rerun its newly failing tests alone to tell a flaky test from a broken one (0: never). */
  flakyReruns: number;
  /**
   * Glob patterns (from the checkout's root) of what a gate writes into the work on purpose: left
   * for the next commit. Everything else a gate creates or changes is undone after it (`--keep-output`).
   */
  keepOutputs?: string[];
  /**
   * A command that fails on the base where no runner says which tests: ask the user (absent), or
   * decide ahead, for unattended runs: `advisory` (its failures fail no gate) or `required` (a check
   * of work still to be done: the tasks must make it pass).
   */
  onBaseFailure?: 'advisory' | 'required';
}

export const DEFAULT_GATE_CONFIG: GateConfig = { baseline: true, affectedOnly: true, flakyReruns: 1 };

/** `taskloom.worktree.*` (`--copy`, `--setup`, `--worktree-root`). */
export interface WorktreeConfig {
  /** gitignore patterns of untracked files copied from the main checkout, besides `.worktreeinclude`'s. */
  copy: string[];
  /** Shell commands run once in each new worktree before its actor starts (`npm ci`, making a venv); all must exit 0. */
  setup: string[];
  /** Absolute folder holding the run's worktrees (`<root>/<repo folder>/<run>/<task>`); absent: `<repo>/.taskloom/worktrees`. */
  root?: string;
}

/** Who plays a role: an agent of the run's `agents`, and the model it is asked for (unset: the agent's default). */
export interface RoleAgent {
  agent: AgentKind;
  model?: string;
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
export const AGENT_KINDS: readonly AgentKind[] = ['claude', 'codex', 'command', 'scripted'];

export const DEFAULT_RUN_CONFIG: Omit<RunConfig, 'gateCommands' | 'agent'> = {
  maxParallel: 2,
  maxGateFixAttempts: 3,
  maxReviewCycles: 3,
  gateTimeoutSeconds: 600,
  stuckThresholdSeconds: 300,
  allowUnverified: false,
  overlap: 'serialize',
};
