import type { SettingName } from '../engine/domain/runSettings';

/** Flags shared by `run` and `demo` that shape a run's config. */
export const RUN_CONFIG_OPTIONS = {
  agent: { type: 'string' },
  'planner-agent': { type: 'string' },
  'actor-agent': { type: 'string' },
  'critic-agent': { type: 'string' },
  script: { type: 'string' },
  'claude-path': { type: 'string' },
  'codex-path': { type: 'string' },
  'codex-config': { type: 'string', multiple: true },
  command: { type: 'string' },
  model: { type: 'string' },
  'planner-model': { type: 'string' },
  'actor-model': { type: 'string' },
  'critic-model': { type: 'string' },
  parallel: { type: 'string' },
  gate: { type: 'string', multiple: true },
  'allow-command': { type: 'string', multiple: true },
  'max-attempts': { type: 'string' },
  'max-reviews': { type: 'string' },
  'stuck-seconds': { type: 'string' },
  'gate-timeout': { type: 'string' },
  'allow-unverified': { type: 'boolean' },
  'budget-usd': { type: 'string' },
  'budget-tokens': { type: 'string' },
  'task-budget-usd': { type: 'string' },
  'task-budget-tokens': { type: 'string' },
  overlap: { type: 'string' },
  copy: { type: 'string', multiple: true },
  'sensitive-path': { type: 'string', multiple: true },
  'no-baseline': { type: 'boolean' },
  'no-affected-only': { type: 'boolean' },
  'flaky-reruns': { type: 'string' },
  'on-base-failure': { type: 'string' },
  'keep-output': { type: 'string', multiple: true },
  setup: { type: 'string', multiple: true },
  'worktree-root': { type: 'string' },
  sandbox: { type: 'string' },
  'allow-host': { type: 'string', multiple: true },
  'setup-host': { type: 'string', multiple: true },
  'gate-host': { type: 'string', multiple: true },
  'pass-env': { type: 'string', multiple: true },
  'hide-path': { type: 'string', multiple: true },
  'read-path': { type: 'string', multiple: true },
  'agents-see-included-files': { type: 'boolean' },
  candidates: { type: 'string' },
  'candidate-agents': { type: 'string' },
  'confirm-pick': { type: 'boolean' },
} as const;

export interface RunConfigFlags {
  agent?: string;
  'planner-agent'?: string;
  'actor-agent'?: string;
  'critic-agent'?: string;
  script?: string;
  'claude-path'?: string;
  'codex-path'?: string;
  'codex-config'?: string[];
  command?: string;
  model?: string;
  'planner-model'?: string;
  'actor-model'?: string;
  'critic-model'?: string;
  parallel?: string;
  gate?: string[];
  'allow-command'?: string[];
  'max-attempts'?: string;
  'max-reviews'?: string;
  'stuck-seconds'?: string;
  'gate-timeout'?: string;
  'allow-unverified'?: boolean;
  'budget-usd'?: string;
  'budget-tokens'?: string;
  'task-budget-usd'?: string;
  'task-budget-tokens'?: string;
  overlap?: string;
  copy?: string[];
  'sensitive-path'?: string[];
  'no-baseline'?: boolean;
  'no-affected-only'?: boolean;
  'flaky-reruns'?: string;
  'on-base-failure'?: string;
  'keep-output'?: string[];
  setup?: string[];
  'worktree-root'?: string;
  sandbox?: string;
  'allow-host'?: string[];
  'setup-host'?: string[];
  'gate-host'?: string[];
  'pass-env'?: string[];
  'hide-path'?: string[];
  'read-path'?: string[];
  'agents-see-included-files'?: boolean;
  candidates?: string;
  'candidate-agents'?: string;
  'confirm-pick'?: boolean;
}

/** The flag each setting comes from, so the shared checks name what the user typed. */
export const FLAG_LABELS: Record<SettingName, string> = {
  agent: '--agent',
  'models.planner': '--planner-model',
  'models.actor': '--actor-model',
  'models.critic': '--critic-model',
  'roles.planner.agent': '--planner-agent',
  'roles.actor.agent': '--actor-agent',
  'roles.critic.agent': '--critic-agent',
  'roles.planner.model': '--planner-model',
  'roles.actor.model': '--actor-model',
  'roles.critic.model': '--critic-model',
  claudePath: '--claude-path',
  codexPath: '--codex-path',
  commandArgv: '--command',
  scriptedScenario: '--script',
  maxParallel: '--parallel',
  gateCommands: '--gate',
  actorAllowedCommands: '--allow-command',
  maxAttempts: '--max-attempts',
  maxReviewCycles: '--max-reviews',
  stuckThresholdSeconds: '--stuck-seconds',
  gateTimeoutSeconds: '--gate-timeout',
  'budgets.runUsd': '--budget-usd',
  'budgets.runTokens': '--budget-tokens',
  'budgets.taskUsd': '--task-budget-usd',
  'budgets.taskTokens': '--task-budget-tokens',
  overlap: '--overlap',
  worktreeCopy: '--copy',
  worktreeSetup: '--setup',
  worktreeRoot: '--worktree-root',
  sandboxMode: '--sandbox',
  sandboxAllowedHosts: '--allow-host',
  sandboxSetupHosts: '--setup-host',
  sandboxGateHosts: '--gate-host',
  sandboxEnv: '--pass-env',
  sandboxHiddenPaths: '--hide-path',
  sandboxReadPaths: '--read-path',
  sandboxAgentsSeeIncludedFiles: '--agents-see-included-files',
  sensitivePaths: '--sensitive-path',
  gateBaseline: '--no-baseline',
  gateAffectedOnly: '--no-affected-only',
  gateFlakyReruns: '--flaky-reruns',
  gateOnBaseFailure: '--on-base-failure',
  gateKeepOutputs: '--keep-output',
  'candidates.count': '--candidates',
  'candidates.agents': '--candidate-agents',
  'candidates.confirmPick': '--confirm-pick',
};
