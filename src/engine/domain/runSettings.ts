import { DEFAULT_GATE_CONFIG, DEFAULT_RUN_CONFIG, type AgentKind } from './runConfig';
import { DEFAULT_SANDBOX_SETTINGS } from './sandboxSettings';
import { DEFAULT_SENSITIVE_PATHS } from './sensitivePaths';

/**
 * What a person chose for a new run, before defaults and checks: the editor's `taskloom.*`
 * settings or the CLI's flags. Values come as JSON a user may have mistyped, so every field is
 * optional and checked when the run's config is made (engine/run/runConfigFromSettings.ts), the
 * one place that applies RUN_SETTING_DEFAULTS.
 */
export interface RoleSetting {
  agent?: string;
  model?: string;
}

export interface RunSettings {
  agent?: AgentKind;
  models?: { planner?: string; actor?: string; critic?: string };
  /** A role's own agent and model; unset parts fall back to `agent` and `models`. */
  roles?: { planner?: RoleSetting; actor?: RoleSetting; critic?: RoleSetting };
  claudePath?: string;
  codexPath?: string;
  /** The command agent's argv template ({prompt_file}, {model}, {cwd}, {role}, {access}). */
  commandArgv?: string[];
  /** The scripted agent's scenario file (absolute, or relative to the folder). */
  scriptedScenario?: string;
  maxParallel?: number;
  /** Empty: detected from the project (package.json scripts, Makefile…). */
  gateCommands?: string[];
  /** Commands the actor may run besides the gate's (Claude Code enforces the list). */
  actorAllowedCommands?: string[];
  maxAttempts?: number;
  maxReviewCycles?: number;
  stuckThresholdSeconds?: number;
  gateTimeoutSeconds?: number;
  budgets?: { runUsd?: number | null; runTokens?: number | null; taskUsd?: number | null; taskTokens?: number | null };
  /** Tasks whose files hints overlap: 'serialize' (default), 'warn' or 'off'. */
  overlap?: string;
  /** gitignore patterns of untracked files copied into each new worktree, besides `.worktreeinclude`'s. */
  worktreeCopy?: string[];
  /** Commands run once in each new worktree before its actor starts. */
  worktreeSetup?: string[];
  /** Where worktrees live: WORKTREES_INSIDE (the default, `.taskloom/worktrees`) or a folder, relative to the repository. */
  worktreeRoot?: string;
  /** Confinement (see SandboxSettings): auto, on or off. */
  sandboxMode?: string;
  sandboxAllowedHosts?: string[];
  sandboxSetupHosts?: string[];
  sandboxGateHosts?: string[];
  sandboxEnv?: string[];
  sandboxHiddenPaths?: string[];
  sandboxReadPaths?: string[];
  sandboxAgentsSeeIncludedFiles?: boolean;
  /** Glob patterns of paths whose change waits for a human (unset: DEFAULT_SENSITIVE_PATHS). */
  sensitivePaths?: string[];
  /** Gate the run's base first and hold a task only for new failures (see GateConfig). */
  gateBaseline?: boolean;
  /** A task's gate runs only the tests its change can affect. */
  gateAffectedOnly?: boolean;
  /** Reruns a gate may spend telling a flaky test from a broken one. */
  gateFlakyReruns?: number;
  /** What a base failure no runner explains is, decided ahead: 'ask' (default), 'advisory' or 'required'. */
  gateOnBaseFailure?: string;
  /** Glob patterns of what a gate writes into the work on purpose; anything else it writes is undone. */
  gateKeepOutputs?: string[];
  /** Candidates per task, and their actors as `agent[:model]`, one per candidate in turn. */
  candidates?: { count?: number; agents?: string[]; confirmPick?: boolean };
}

/** Settings the CLI has as flags and the editor does not: they default to off. */
export interface ExtraRunSettings {
  allowUnverified?: boolean;
  /** Extra `-c key=value` settings for codex, e.g. a model provider. */
  codexConfig?: string[];
}

/** A RunSettings field, dotted for the nested ones: what each shell maps to its own name for messages. */
export type SettingName =
  | 'agent'
  | `models.${'planner' | 'actor' | 'critic'}`
  | `roles.${'planner' | 'actor' | 'critic'}.${'agent' | 'model'}`
  | 'claudePath'
  | 'codexPath'
  | 'commandArgv'
  | 'scriptedScenario'
  | 'maxParallel'
  | 'gateCommands'
  | 'actorAllowedCommands'
  | 'maxAttempts'
  | 'maxReviewCycles'
  | 'stuckThresholdSeconds'
  | 'gateTimeoutSeconds'
  | `budgets.${'runUsd' | 'runTokens' | 'taskUsd' | 'taskTokens'}`
  | 'overlap'
  | 'worktreeCopy'
  | 'worktreeSetup'
  | 'worktreeRoot'
  | 'sandboxMode'
  | 'sandboxAllowedHosts'
  | 'sandboxSetupHosts'
  | 'sandboxGateHosts'
  | 'sandboxEnv'
  | 'sandboxHiddenPaths'
  | 'sandboxReadPaths'
  | 'sandboxAgentsSeeIncludedFiles'
  | 'sensitivePaths'
  | 'gateBaseline'
  | 'gateAffectedOnly'
  | 'gateFlakyReruns'
  | 'gateOnBaseFailure'
  | 'gateKeepOutputs'
  | `candidates.${'count' | 'agents' | 'confirmPick'}`;

/** `worktreeRoot` meaning the default: inside the repository. */
export const WORKTREES_INSIDE = 'inside';

/**
 * What an unset setting means, where it means a value: the one source of the defaults. The
 * editor's manifest declares the same (a test compares them); settings not listed here are
 * off or empty when unset.
 */
export const RUN_SETTING_DEFAULTS = {
  agent: 'claude',
  maxParallel: DEFAULT_RUN_CONFIG.maxParallel,
  maxAttempts: DEFAULT_RUN_CONFIG.maxGateFixAttempts,
  maxReviewCycles: DEFAULT_RUN_CONFIG.maxReviewCycles,
  stuckThresholdSeconds: DEFAULT_RUN_CONFIG.stuckThresholdSeconds,
  gateTimeoutSeconds: DEFAULT_RUN_CONFIG.gateTimeoutSeconds,
  overlap: DEFAULT_RUN_CONFIG.overlap,
  worktreeRoot: WORKTREES_INSIDE,
  sandboxMode: DEFAULT_SANDBOX_SETTINGS.mode,
  sandboxSetupHosts: DEFAULT_SANDBOX_SETTINGS.setupHosts,
  sandboxHiddenPaths: DEFAULT_SANDBOX_SETTINGS.hiddenPaths,
  sandboxReadPaths: DEFAULT_SANDBOX_SETTINGS.readPaths,
  sandboxAgentsSeeIncludedFiles: DEFAULT_SANDBOX_SETTINGS.agentsSeeIncludedFiles,
  sensitivePaths: DEFAULT_SENSITIVE_PATHS,
  gateBaseline: DEFAULT_GATE_CONFIG.baseline,
  gateAffectedOnly: DEFAULT_GATE_CONFIG.affectedOnly,
  gateFlakyReruns: DEFAULT_GATE_CONFIG.flakyReruns,
  gateOnBaseFailure: 'ask',
  'candidates.count': 1,
  'candidates.confirmPick': false,
} as const satisfies Partial<Record<SettingName, unknown>>;
