import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Budgets } from '../engine/domain/budget';
import { DEFAULT_RUN_CONFIG, type AgentConfig, type RoleModels, type RunConfig } from '../engine/domain/runConfig';
import { validateCommandTemplate } from '../engine/agents/command/commandRunner';
import { detectGateCommands } from '../engine/gate/detectGateCommands';
import { UsageError } from './cliErrors';

/** Flags shared by `run` and `demo` that shape a run's config. */
export const RUN_CONFIG_OPTIONS = {
  agent: { type: 'string' },
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
  'max-attempts': { type: 'string' },
  'max-reviews': { type: 'string' },
  'stuck-seconds': { type: 'string' },
  'gate-timeout': { type: 'string' },
  'allow-unverified': { type: 'boolean' },
  'budget-usd': { type: 'string' },
  'budget-tokens': { type: 'string' },
  'task-budget-usd': { type: 'string' },
  'task-budget-tokens': { type: 'string' },
} as const;

export interface RunConfigFlags {
  agent?: string;
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
  'max-attempts'?: string;
  'max-reviews'?: string;
  'stuck-seconds'?: string;
  'gate-timeout'?: string;
  'allow-unverified'?: boolean;
  'budget-usd'?: string;
  'budget-tokens'?: string;
  'task-budget-usd'?: string;
  'task-budget-tokens'?: string;
}

function positiveInt(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${flag} must be a whole number ≥ 1, got "${value}"`);
  return n;
}

function positiveNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${flag} must be a number > 0, got "${value}"`);
  return n;
}

function buildBudgets(flags: RunConfigFlags): Budgets | undefined {
  const budgets: Budgets = {
    runUsd: positiveNumber('budget-usd', flags['budget-usd']),
    runTokens: positiveNumber('budget-tokens', flags['budget-tokens']),
    taskUsd: positiveNumber('task-budget-usd', flags['task-budget-usd']),
    taskTokens: positiveNumber('task-budget-tokens', flags['task-budget-tokens']),
  };
  const set = Object.entries(budgets).filter(([, v]) => v !== undefined);
  return set.length ? (Object.fromEntries(set) as Budgets) : undefined;
}

export function buildRunConfig(flags: RunConfigFlags, cwd: string, repoRoot: string): RunConfig {
  const budgets = buildBudgets(flags);
  return {
    ...DEFAULT_RUN_CONFIG,
    maxParallel: positiveInt('parallel', flags.parallel, DEFAULT_RUN_CONFIG.maxParallel),
    maxGateFixAttempts: positiveInt('max-attempts', flags['max-attempts'], DEFAULT_RUN_CONFIG.maxGateFixAttempts),
    maxReviewCycles: positiveInt('max-reviews', flags['max-reviews'], DEFAULT_RUN_CONFIG.maxReviewCycles),
    stuckThresholdSeconds: positiveInt('stuck-seconds', flags['stuck-seconds'], DEFAULT_RUN_CONFIG.stuckThresholdSeconds),
    gateTimeoutSeconds: positiveInt('gate-timeout', flags['gate-timeout'], DEFAULT_RUN_CONFIG.gateTimeoutSeconds),
    allowUnverified: flags['allow-unverified'] ?? false,
    ...(budgets ? { budgets } : {}),
    gateCommands: flags.gate?.length ? flags.gate : detectGateCommands(repoRoot),
    agent: buildAgentConfig(flags, cwd),
  };
}

const AGENT_KINDS = ['claude', 'codex', 'command', 'scripted'] as const;

function buildAgentConfig(flags: RunConfigFlags, cwd: string): AgentConfig {
  const kind = flags.agent ?? (flags.script ? 'scripted' : 'claude');
  const models: RoleModels = {
    ...(flags['planner-model'] ?? flags.model ? { planner: flags['planner-model'] ?? flags.model } : {}),
    ...(flags['actor-model'] ?? flags.model ? { actor: flags['actor-model'] ?? flags.model } : {}),
    ...(flags['critic-model'] ?? flags.model ? { critic: flags['critic-model'] ?? flags.model } : {}),
  };
  switch (kind) {
    case 'scripted': {
      if (!flags.script) throw new UsageError('The scripted agent needs a scenario: --script FILE');
      const scriptPath = resolve(cwd, flags.script);
      if (!existsSync(scriptPath)) throw new UsageError(`Scenario file not found: ${scriptPath}`);
      return { kind, scriptPath };
    }
    case 'claude':
      return { kind, binaryPath: flags['claude-path'] || process.env.TASKLOOM_CLAUDE_PATH || 'claude', models };
    case 'codex':
      return {
        kind,
        binaryPath: flags['codex-path'] || process.env.TASKLOOM_CODEX_PATH || 'codex',
        models,
        configOverrides: flags['codex-config'] ?? [],
      };
    case 'command': {
      if (!flags.command) throw new UsageError('The command agent needs its command line: --command \'["aider", "--message-file", "{prompt_file}"]\'');
      const argv = parseCommandTemplate(flags.command);
      const problems = validateCommandTemplate(argv);
      if (problems.length) throw new UsageError(`--command: ${problems.join('; ')}`);
      return { kind, argv, models };
    }
    default:
      throw new UsageError(`Unknown agent "${kind}"`, `Choose one of: ${AGENT_KINDS.join(', ')}`);
  }
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
  return text.trim().split(/\s+/);
}
