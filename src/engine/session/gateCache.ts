import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import type { GateCommandResult } from '../domain/events';
import type { GateSummary } from '../domain/runState';
import type { GateResult } from '../gate/runGate';
import { writeFileAtomic } from '../io/atomicWrite';
import { allowedEnvNames, filterEnv } from '../sandbox/envAllowList';
import { taskloomPaths } from '../store/paths';
import { GATE_COMMANDS_SCHEMA } from '../store/eventSchemas';
import type { RunContext } from './runContext';

/** What a gate's result rests on besides the tree: which tests ran and what they were judged against. */
export type GateScope =
  | { kind: 'baseline' }
  /** `changedFrom`: the commit a task gate's affected-only selection compares with; absent, every test ran. */
  | { kind: 'gate'; changedFrom?: string };

/**
 * The key of a gate result: the tree it ran on, the gate's commands, the environment the gate
 * sees (what the sandbox lets through, without the task's own id and port) and how it judged.
 * Two gates with one key would give one result, so the second is served the first's.
 */
export function gateKey(ctx: Pick<RunContext, 'session'>, tree: string, scope: GateScope): string {
  const { config, baseline } = ctx.session.state;
  const env = filterEnv(process.env, allowedEnvNames(undefined, config.sandbox?.env ?? []));
  const judged =
    scope.kind === 'baseline'
      ? {}
      : { baseline: baseline?.key ?? null, advisory: [...(baseline?.advisory ?? [])].sort(), flakyReruns: config.gate?.flakyReruns ?? 0, changedFrom: scope.changedFrom ?? null };
  const parts = { tree, scope: scope.kind, commands: config.gateCommands, env: Object.entries(env).sort(([a], [b]) => a.localeCompare(b)), ...judged };
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** The result of the gate with this key, when one ran in the run: served again, with where it came from. */
export function servedFromCache(ctx: Pick<RunContext, 'session'>, key: string): { gate: GateResult; cachedFrom: NonNullable<GateSummary['cachedFrom']> } | undefined {
  const hit = ctx.session.state.gateCache[key];
  if (!hit) return undefined;
  return { gate: { passed: hit.passed, stuck: false, cancelled: false, commands: hit.commands }, cachedFrom: { seq: hit.seq, taskId: hit.taskId, attempt: hit.attempt } };
}

const BASELINE_CACHE_SIZE = 20;
const baselineCache = z.array(z.object({ key: z.string(), commands: GATE_COMMANDS_SCHEMA }));

/**
 * Baselines of earlier runs of this repository (`.taskloom/baselines.json`, which no agent can
 * write: its checkouts are the worktrees only), newest first, so a run on an already gated base
 * does not gate it again. Unreadable or damaged, it is only a miss.
 */
export function cachedBaseline(repoRoot: string, key: string): GateCommandResult[] | undefined {
  return readBaselineCache(repoRoot).find((entry) => entry.key === key)?.commands;
}

export function rememberBaseline(repoRoot: string, key: string, commands: GateCommandResult[]): void {
  const kept = readBaselineCache(repoRoot).filter((entry) => entry.key !== key);
  writeFileAtomic(baselineFile(repoRoot), `${JSON.stringify([{ key, commands }, ...kept].slice(0, BASELINE_CACHE_SIZE))}\n`);
}

function readBaselineCache(repoRoot: string): z.infer<typeof baselineCache> {
  try {
    const parsed = baselineCache.safeParse(JSON.parse(readFileSync(baselineFile(repoRoot), 'utf8')));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

const baselineFile = (repoRoot: string): string => join(taskloomPaths(repoRoot).dir, 'baselines.json');
