import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
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
}

function positiveInt(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${flag} must be a whole number ≥ 1, got "${value}"`);
  return n;
}

export function buildRunConfig(flags: RunConfigFlags, cwd: string, repoRoot: string): RunConfig {
  const agentKind = flags.agent ?? 'scripted';
  if (agentKind !== 'scripted') {
    throw new UsageError(`Unknown agent "${agentKind}"`, 'This build drives the scripted agent: --agent scripted --script FILE');
  }
  if (!flags.script) throw new UsageError('The scripted agent needs a scenario: --script FILE');
  const scriptPath = resolve(cwd, flags.script);
  if (!existsSync(scriptPath)) throw new UsageError(`Scenario file not found: ${scriptPath}`);
  return {
    ...DEFAULT_RUN_CONFIG,
    maxParallel: positiveInt('parallel', flags.parallel, DEFAULT_RUN_CONFIG.maxParallel),
    maxGateFixAttempts: positiveInt('max-attempts', flags['max-attempts'], DEFAULT_RUN_CONFIG.maxGateFixAttempts),
    maxReviewCycles: positiveInt('max-reviews', flags['max-reviews'], DEFAULT_RUN_CONFIG.maxReviewCycles),
    stuckThresholdSeconds: positiveInt('stuck-seconds', flags['stuck-seconds'], DEFAULT_RUN_CONFIG.stuckThresholdSeconds),
    gateTimeoutSeconds: positiveInt('gate-timeout', flags['gate-timeout'], DEFAULT_RUN_CONFIG.gateTimeoutSeconds),
    allowUnverified: flags['allow-unverified'] ?? false,
    gateCommands: flags.gate?.length ? flags.gate : detectGateCommands(repoRoot),
    agent: { kind: 'scripted', scriptPath },
  };
}
