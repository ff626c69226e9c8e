import { createReadStream, existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import * as z from 'zod';
import { readUsage, type CodexUsage } from './codexEventParser';

/** The parts of a rollout line this module reads; codex writes much more, and may change the rest. */
const rolloutLine = z.looseObject({
  type: z.string().optional(),
  payload: z
    .looseObject({
      type: z.string().optional(),
      model: z.unknown().optional(),
      info: z.looseObject({ total_token_usage: z.unknown().optional() }).nullish(),
    })
    .optional(),
});

function parseRolloutLine(line: string): z.infer<typeof rolloutLine> | undefined {
  try {
    const parsed = rolloutLine.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Codex keeps each thread as a "rollout" file, `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`,
 * whose `event_msg` lines of `payload.type: "token_count"` carry `info.total_token_usage` (the
 * thread's cumulative usage) and whose `turn_context` lines carry the model. The runner reads
 * it only as a fallback: for the usage before a resumed call when this process did not see
 * the thread's previous call (after a restart), for the usage of a call that failed after
 * spending tokens (no `turn.completed` on stdout), and for the model codex chose by itself.
 * It is codex's internal format: everything here is best effort and returns undefined.
 */

export function codexHomeOf(env: NodeJS.ProcessEnv): string {
  return env.CODEX_HOME && env.CODEX_HOME !== '' ? env.CODEX_HOME : join(env.HOME || homedir(), '.codex');
}

const MAX_DAY_DIRS = 5000;

export function findRolloutFile(codexHome: string, threadId: string): string | undefined {
  if (!/^[0-9a-f-]{8,}$/i.test(threadId)) return undefined;
  const sessions = join(codexHome, 'sessions');
  if (!existsSync(sessions)) return undefined;
  const suffix = `-${threadId}.jsonl`;
  const inDay = (dir: string) => {
    try {
      const name = readdirSync(dir).find((f) => f.startsWith('rollout-') && f.endsWith(suffix));
      return name ? join(dir, name) : undefined;
    } catch {
      return undefined;
    }
  };
  // A UUIDv7 thread id starts with its creation time in ms: look at that day (and its neighbours, for time zones) first.
  for (const dir of likelyDayDirs(sessions, threadId)) {
    const found = inDay(dir);
    if (found) return found;
  }
  let visited = 0;
  for (const year of listDesc(sessions)) {
    for (const month of listDesc(join(sessions, year))) {
      for (const day of listDesc(join(sessions, year, month))) {
        if (++visited > MAX_DAY_DIRS) return undefined;
        const found = inDay(join(sessions, year, month, day));
        if (found) return found;
      }
    }
  }
  return undefined;
}

export interface RolloutSummary {
  /** The last cumulative usage recorded for the thread. */
  usage?: CodexUsage;
  /** The model of the last turn. */
  model?: string;
}

export async function readRolloutSummary(file: string): Promise<RolloutSummary> {
  const summary: RolloutSummary = {};
  try {
    const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
    for await (const line of lines) {
      // Cheap filters first: rollouts hold whole conversations.
      const isTokens = line.includes('"token_count"');
      const isContext = !isTokens && line.includes('"turn_context"');
      if (!isTokens && !isContext) continue;
      const entry = parseRolloutLine(line);
      if (!entry) continue;
      const payload = entry.payload;
      if (isTokens && payload?.type === 'token_count') {
        const usage = readUsage(payload.info?.total_token_usage);
        if (usage) summary.usage = usage;
      } else if (entry.type === 'turn_context' && typeof payload?.model === 'string') {
        summary.model = payload.model;
      }
    }
  } catch {
    // unreadable: whatever was read so far
  }
  return summary;
}

export async function readThreadSummary(env: NodeJS.ProcessEnv, threadId: string): Promise<RolloutSummary> {
  const file = findRolloutFile(codexHomeOf(env), threadId);
  return file ? readRolloutSummary(file) : {};
}

function likelyDayDirs(sessions: string, threadId: string): string[] {
  const ms = Number.parseInt(threadId.replace(/-/g, '').slice(0, 12), 16);
  if (!Number.isFinite(ms) || ms <= 0) return [];
  const dirs = new Set<string>();
  for (const offset of [0, -86_400_000, 86_400_000]) {
    const d = new Date(ms + offset);
    const pad = (n: number) => String(n).padStart(2, '0');
    dirs.add(join(sessions, String(d.getFullYear()), pad(d.getMonth() + 1), pad(d.getDate())));
    dirs.add(join(sessions, String(d.getUTCFullYear()), pad(d.getUTCMonth() + 1), pad(d.getUTCDate())));
  }
  return [...dirs];
}

function listDesc(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => /^\d+$/.test(n)).sort().reverse();
  } catch {
    return [];
  }
}
