import type { HumanAction } from '../domain/events';

/** "68%", or "none yet" for a rate over nothing (null): never a 0% that nothing measured. */
export const rateWords = (rate: number | null): string => (rate === null ? 'none yet' : `${Math.round(rate * 1000) / 10}%`);

/** "0.33", or "none merged" for a figure per merged task when no task merged. */
export const perMergedWords = (value: number | null, unit: (v: number) => string = (v) => String(v)): string => (value === null ? 'none merged' : unit(value));

/** "retry 2, accept 1" (the actions taken at all, in the order a person meets them), or "none". */
export function decisionCountWords(counts: Readonly<Record<HumanAction, number>>): string {
  const order: HumanAction[] = ['retry', 'accept', 'skip', 'resolve', 'continue'];
  const taken = order.filter((a) => counts[a] > 0).map((a) => `${a} ${counts[a]}`);
  return taken.length ? taken.join(', ') : 'none';
}

/** "correctness 3, requirements 1", most first, or "none". */
export function categoryWords(counts: Readonly<Record<string, number>>): string {
  const entries = Object.entries(counts).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
  return entries.length ? entries.map(([category, n]) => `${category} ${n}`).join(', ') : 'none';
}
