import type { CallStep, TaskTimings } from '../domain/taskTimings';

/** Each view prints durations its own way ("1.2 s", "1s"); the words around them are the same everywhere. */
export type FormatDuration = (ms: number) => string;

/** "time 4.2 s (building 1.1 s, gating 2.6 s, reviewing 0.3 s); merge queue 2.4 s; waited for you 20 min 3 s". */
export function timingWords(t: TaskTimings, duration: FormatDuration): string {
  const phases = (
    [
      ['building', t.buildingMs],
      ['gating', t.gatingMs],
      ['reviewing', t.reviewingMs],
    ] as const
  )
    .filter(([, ms]) => ms > 0)
    .map(([what, ms]) => `${what} ${duration(ms)}`);
  const parts = [`time ${duration(t.totalMs)}${phases.length ? ` (${phases.join(', ')})` : ''}`];
  if (t.mergeQueueMs > 0) parts.push(`merge queue ${duration(t.mergeQueueMs)}`);
  if (t.waitingForHumanSince !== undefined) parts.push(`waiting for you ${duration(t.waitingForHumanMs)} so far`);
  else if (t.waitingForHumanMs > 0) parts.push(`waited for you ${duration(t.waitingForHumanMs)}`);
  if (t.pullRequestFixesMs > 0) parts.push(`pull request fixes ${duration(t.pullRequestFixesMs)}`);
  return parts.join('; ');
}

const STEP_WORDS: Record<CallStep, string> = { build: 'build', resolve: 'resolve', review: 'review', pull_request: 'pull request fix' };

/** Every agent call and gate run in the order they ended: "build 368 ms, gate 1.1 s failed, build 213 ms, gate 833 ms, review 148 ms". */
export function stepWords(t: TaskTimings, duration: FormatDuration): string {
  const steps = [
    ...t.calls.map((c) => ({ seq: c.seq, words: `${STEP_WORDS[c.step]} ${duration(c.durationMs)}${c.status === 'ok' ? '' : ` ${c.status.replace('_', ' ')}`}` })),
    ...t.gateRuns.map((g) => ({ seq: g.seq, words: `gate ${duration(g.durationMs)}${g.passed ? '' : ' failed'}` })),
  ];
  return steps
    .sort((a, b) => a.seq - b.seq)
    .map((s) => s.words)
    .join(', ');
}
