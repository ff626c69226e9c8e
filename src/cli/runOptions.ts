import type { AgentKind, RunConfig } from '../engine/domain/runConfig';
import { DEFAULT_SANDBOX_SETTINGS } from '../engine/domain/sandboxSettings';
import { runConfigFromSettings } from '../engine/run/runConfigFromSettings';
import type { ExtraRunSettings, RunSettings, SettingName } from '../engine/domain/runSettings';
import { UsageError } from './cliErrors';

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
};

/** The run config these flags make (for the doctor, which checks what a run would use). */
export function buildRunConfig(flags: RunConfigFlags, cwd: string, repoRoot: string): RunConfig {
  return runConfigFromSettings(runSettingsFromFlags(flags), { baseDir: cwd, repoRoot, labels: FLAG_LABELS });
}

/** The flags as RunSettings; runConfigFromSettings (shared with the editor) does the defaults and the checks. */
export function runSettingsFromFlags(flags: RunConfigFlags): RunSettings & ExtraRunSettings {
  const model = flags.model;
  // A scenario file alone means the scripted agent; otherwise the default agent is the engine's call.
  const agent = (flags.agent ?? (flags.script ? 'scripted' : undefined)) as AgentKind | undefined;
  return {
    ...(agent ? { agent } : {}),
    models: {
      ...(flags['planner-model'] ?? model ? { planner: flags['planner-model'] ?? model } : {}),
      ...(flags['actor-model'] ?? model ? { actor: flags['actor-model'] ?? model } : {}),
      ...(flags['critic-model'] ?? model ? { critic: flags['critic-model'] ?? model } : {}),
    },
    ...(flags['claude-path'] ? { claudePath: flags['claude-path'] } : {}),
    ...(flags['codex-path'] ? { codexPath: flags['codex-path'] } : {}),
    roles: {
      ...(flags['planner-agent'] ? { planner: { agent: flags['planner-agent'] } } : {}),
      ...(flags['actor-agent'] ? { actor: { agent: flags['actor-agent'] } } : {}),
      ...(flags['critic-agent'] ? { critic: { agent: flags['critic-agent'] } } : {}),
    },
    // Whichever roles use the command agent take its command line.
    ...(flags.command !== undefined ? { commandArgv: parseCommandTemplate(flags.command) } : {}),
    ...(flags.script ? { scriptedScenario: flags.script } : {}),
    maxParallel: numberFlag('parallel', flags.parallel),
    gateCommands: flags.gate ?? [],
    actorAllowedCommands: flags['allow-command'] ?? [],
    maxAttempts: numberFlag('max-attempts', flags['max-attempts']),
    maxReviewCycles: numberFlag('max-reviews', flags['max-reviews']),
    stuckThresholdSeconds: numberFlag('stuck-seconds', flags['stuck-seconds']),
    gateTimeoutSeconds: numberFlag('gate-timeout', flags['gate-timeout']),
    budgets: {
      runUsd: numberFlag('budget-usd', flags['budget-usd']),
      runTokens: numberFlag('budget-tokens', flags['budget-tokens']),
      taskUsd: numberFlag('task-budget-usd', flags['task-budget-usd']),
      taskTokens: numberFlag('task-budget-tokens', flags['task-budget-tokens']),
    },
    allowUnverified: flags['allow-unverified'] ?? false,
    ...(flags.overlap !== undefined ? { overlap: flags.overlap } : {}),
    worktreeCopy: flags.copy ?? [],
    ...(flags['sensitive-path'] ? { sensitivePaths: flags['sensitive-path'] } : {}),
    worktreeSetup: flags.setup ?? [],
    gateKeepOutputs: flags['keep-output'] ?? [],
    ...(flags['worktree-root'] !== undefined ? { worktreeRoot: flags['worktree-root'] } : {}),
    codexConfig: flags['codex-config'] ?? [],
    ...(flags.sandbox !== undefined ? { sandboxMode: flags.sandbox } : {}),
    sandboxAllowedHosts: flags['allow-host'] ?? [],
    // Added to the defaults on the command line, where a list cannot be edited.
    sandboxSetupHosts: [...DEFAULT_SANDBOX_SETTINGS.setupHosts, ...(flags['setup-host'] ?? [])],
    sandboxGateHosts: flags['gate-host'] ?? [],
    sandboxEnv: flags['pass-env'] ?? [],
    sandboxHiddenPaths: [...DEFAULT_SANDBOX_SETTINGS.hiddenPaths, ...(flags['hide-path'] ?? [])],
    sandboxReadPaths: [...DEFAULT_SANDBOX_SETTINGS.readPaths, ...(flags['read-path'] ?? [])],
    sandboxAgentsSeeIncludedFiles: flags['agents-see-included-files'] ?? false,
    ...(flags['no-baseline'] ? { gateBaseline: false } : {}),
    ...(flags['no-affected-only'] ? { gateAffectedOnly: false } : {}),
    gateFlakyReruns: numberFlag('flaky-reruns', flags['flaky-reruns']),
    ...(flags['on-base-failure'] !== undefined ? { gateOnBaseFailure: flags['on-base-failure'] } : {}),
  };
}

/** Only the syntax: whether the number is allowed is runConfigFromSettings' call. */
function numberFlag(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === '' || Number.isNaN(n)) throw new UsageError(`--${flag} must be a number, got "${text}"`);
  return n;
}

/** A JSON array of arguments, or a plain command line split at spaces (no quoting). */
function parseCommandTemplate(text: string): string[] {
  if (text.trim().startsWith('[')) {
    try {
      const argv: unknown = JSON.parse(text);
      if (Array.isArray(argv) && argv.every((a) => typeof a === 'string')) return argv as string[];
    } catch {
      // reported below
    }
    throw new UsageError('--command: a JSON array of strings was expected, e.g. ["my-agent", "--prompt-file", "{prompt_file}"]');
  }
  return text.trim().split(/\s+/).filter(Boolean);
}
