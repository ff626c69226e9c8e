import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';

/**
 * One row per injected fault kind, shared by the storage, agent and concurrency campaigns, so
 * `npm run test:faults` prints them as one table under the kill campaign's.
 */
export interface FaultRow {
  /** The group the fault belongs to: 'storage', 'agent', 'concurrency'. */
  group: string;
  /** What was injected, e.g. "truncated last line of events.jsonl". */
  kind: string;
  injected: number;
  handled: number;
  /** What the user saw / what state things ended in, one short phrase. */
  outcome: string;
  /** Why a case was not handled (empty when all were). */
  problems: string[];
}

export function formatFaultTable(rows: FaultRow[]): string {
  const cells: string[][] = [['group', 'fault injected', 'injected', 'handled', 'failures', 'outcome']];
  for (const r of rows) {
    cells.push([r.group, r.kind, String(r.injected), String(r.handled), String(r.injected - r.handled), r.outcome]);
  }
  const total = (pick: (r: FaultRow) => number) => String(rows.reduce((n, r) => n + pick(r), 0));
  cells.push(['TOTAL', `${rows.length} kinds`, total((r) => r.injected), total((r) => r.handled), total((r) => r.injected - r.handled), '']);
  const numeric = new Set([2, 3, 4]);
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  const fmt = (r: string[]) =>
    r.map((cell, i) => (numeric.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [fmt(cells[0]!), rule, ...cells.slice(1, -1).map(fmt), rule, fmt(cells.at(-1)!)].join('\n');
}

/**
 * One subtest per fault case, named by it, so a failure says which case and every other case
 * still reports; the whole table goes with each failure for context.
 */
export async function assertEachFault(t: TestContext, rows: FaultRow[]): Promise<void> {
  const table = formatFaultTable(rows);
  assert.ok(rows.length > 0, 'the campaign injected no fault');
  for (const row of rows) {
    await t.test(`${row.group} / ${row.kind}`, () => {
      assert.deepEqual(row.problems, [], `${row.outcome}\n${table}`);
      assert.ok(row.injected > 0 && row.handled === row.injected, `${row.handled} of ${row.injected} handled\n${table}`);
    });
  }
}

export function faultProblems(rows: FaultRow[]): string[] {
  return rows.flatMap((r) => r.problems.map((p) => `${r.group} / ${r.kind}: ${p}`));
}
