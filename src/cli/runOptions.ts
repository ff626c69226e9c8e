import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Budgets } from '../engine/domain/budget';
import { DEFAULT_RUN_CONFIG, type RunConfig } from '../engine/domain/runConfig';
import { detectGateCommands } from '../engine/gate/detectGateCommands';
import { UsageError } from './cliErrors';

/** Flags shared by `run` and `demo` that shape a run's config. */
export const RUN_CONFIG_OPTIONS = {
  agent: { type: 'string' },
  script: { type: 'string' },
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
  const agentKind = flags.agent ?? 'scripted';
  if (agentKind !== 'scripted') {
    throw new UsageError(`Unknown agent "${agentKind}"`, 'This build drives the scripted agent: --agent scripted --script FILE');
  }
  if (!flags.script) throw new UsageError('The scripted agent needs a scenario: --script FILE');
  const scriptPath = resolve(cwd, flags.script);
  if (!existsSync(scriptPath)) throw new UsageError(`Scenario file not found: ${scriptPath}`);
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
    agent: { kind: 'scripted', scriptPath },
  };
}
