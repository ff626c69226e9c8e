/**
 * Crash and fault campaign: one uninterrupted reference run, then many runs SIGKILLed at
 * chosen points (after the Nth durable event, at event types, inside gates, agent calls and
 * the integration merges; some killed again during their resume), each resumed and compared
 * with the reference. Prints a table and exits 1 on any failure.
 *
 *   node --import tsx test/faults/killCampaign.ts [--points N] [--parallel-points K] [--delay MS] [--keep]
 */
import type { RunEvent } from '../../src/engine/domain/events';
import { runCli, startCli } from '../helpers/cli';
import { campaignWorkspace, differencesFromReference, readEvents, readReference, startKiller, withDeadline, type EndState, type KillSpec } from './faultHelpers';

export type { KillSpec };

export interface KillPoint {
  name: string;
  phase: string;
  spec: KillSpec;
  /** Kill the first resume too, once it has made this many more events durable; then resume again. */
  secondKillAfterLines?: number;
}

export interface PointResult {
  point: KillPoint;
  reached: boolean;
  identical: boolean;
  problems: string[];
  killedAtLines?: number;
  durationMs: number;
  dir?: string;
}

export interface CampaignResult {
  referenceEvents: number;
  referenceMs: number;
  referenceCode: number | null;
  results: PointResult[];
  durationMs: number;
}

interface Reference {
  end: EndState;
  events: RunEvent[];
  code: number | null;
}

const TIMEOUT_MS = 120_000;


/** Runs `args` with a watcher that SIGKILLs its process group at `spec`. */
async function runAndKill(dir: string, args: string[], spec: KillSpec) {
  const { pid, result } = withDeadline(startCli(args), TIMEOUT_MS);
  const killer = startKiller(dir, pid, spec);
  const [res, kill] = await Promise.all([result, killer]);
  return { res, kill };
}

function phaseOfLine(events: RunEvent[], n: number): string {
  const next = events[n];
  if (!next) return 'end of run';
  const last = events[n - 1]!;
  if (next.type === 'task_synced' || (next.type === 'task_transition' && (next.event === 'RESOLVE_STARTED' || next.from === 'RESOLVING'))) return 'resolution';
  if (['integration_prepared', 'merge_queued', 'queue_batch', 'merge_done', 'merge_conflict', 'queue_bisected'].includes(next.type)) return 'merge queue';
  if (next.type === 'task_transition' && (next.event === 'MERGE_STARTED' || next.event === 'MERGE_VERIFIED' || next.event === 'MERGE_CONFLICTED')) return 'merge queue';
  if (next.type.startsWith('candidate_')) return 'candidates';
  if (next.type === 'gate_result') return next.taskId === null ? 'integration gate' : 'gate';
  if (next.type === 'runner_call') return `${next.role} call`;
  if (next.type === 'critic_verdict') return 'critic call';
  if (next.type === 'worktree_prepared' || next.type === 'work_committed' || next.type === 'actor_snapshot') return 'git operation';
  if (last.type === 'run_created' || last.type === 'plan_approved') return 'start';
  return 'event boundary';
}

const REDUCED = [
  'after plan_approved',
  'after the first failed gate_result',
  'after changes_required',
  'after the third GREEN',
  'after the first merge_done, before its MERGED',
  'mid-resolution (the resolver working)',
  'mid-candidates (the first candidate building)',
];

/** The kill points: event types and phases first, then "after the Nth durable event" spread over the run. */
export function choosePoints(events: RunEvent[], count: number): KillPoint[] {
  const typed: KillPoint[] = [
    { name: 'after plan_approved', phase: 'start', spec: { type: 'plan_approved' } },
    { name: 'after the first worktree_prepared', phase: 'git operation', spec: { type: 'worktree_prepared' } },
    { name: 'during the first actor call', phase: 'actor call', spec: { type: 'actor_snapshot', delayMs: 30 } },
    { name: 'after the first work_committed', phase: 'git operation', spec: { type: 'work_committed' } },
    { name: 'mid-candidates (the first candidate building)', phase: 'candidates', spec: { type: 'candidate_started', delayMs: 30 } },
    { name: 'after the first candidate_finished', phase: 'candidates', spec: { type: 'candidate_finished' } },
    { name: 'during the first gate', phase: 'gate', spec: { type: 'work_committed', delayMs: 60 } },
    { name: 'after the first failed gate_result', phase: 'gate', spec: { type: 'gate_result', where: { passed: false } } },
    { name: 'during the fix attempt after the failed gate', phase: 'actor call', spec: { type: 'gate_result', where: { passed: false }, delayMs: 50 } },
    { name: 'during the first critic call', phase: 'critic call', spec: { type: 'gate_result', where: { passed: true }, delayMs: 40 } },
    { name: 'after changes_required', phase: 'critic call', spec: { type: 'critic_verdict', where: { verdict: { decision: 'changes_required' } } } },
    { name: 'after the third GREEN', phase: 'event boundary', spec: { type: 'task_transition', where: { to: 'GREEN' }, occurrence: 3 } },
    { name: 'after integration_prepared', phase: 'merge queue', spec: { type: 'integration_prepared' } },
    { name: 'after the first queue_batch', phase: 'merge queue', spec: { type: 'queue_batch' } },
    { name: 'between a merge and its gate', phase: 'merge queue', spec: { type: 'task_transition', where: { event: 'MERGE_STARTED' }, occurrence: 2, delayMs: 10 } },
    { name: 'during an integration gate', phase: 'integration gate', spec: { type: 'task_transition', where: { event: 'MERGE_STARTED' }, occurrence: 3, delayMs: 60 } },
    { name: 'after the first merge_done, before its MERGED', phase: 'merge queue', spec: { type: 'merge_done' } },
    { name: 'after the first merge_conflict', phase: 'merge queue', spec: { type: 'merge_conflict' } },
    { name: 'after the conflict is taken into the worktree', phase: 'resolution', spec: { type: 'task_synced' } },
    { name: 'mid-resolution (the resolver working)', phase: 'resolution', spec: { type: 'task_transition', where: { event: 'RESOLVE_STARTED' }, delayMs: 30 } },
    { name: 'gating the resolution', phase: 'resolution', spec: { type: 'task_transition', where: { event: 'RESOLVE_STARTED' }, delayMs: 120 } },
  ];
  const doubles: KillPoint[] = [
    { name: 'double: at the first gate_result, then 3 events into the resume', phase: 'double kill', spec: { type: 'gate_result' }, secondKillAfterLines: 3 },
    { name: 'double: after changes_required, then 6 events into the resume', phase: 'double kill', spec: { type: 'critic_verdict', where: { verdict: { decision: 'changes_required' } } }, secondKillAfterLines: 6 },
    { name: 'double: after the first merge_done, then 1 event into the resume', phase: 'double kill', spec: { type: 'merge_done' }, secondKillAfterLines: 1 },
    { name: 'double: mid-resolution, then 4 events into the resume', phase: 'double kill', spec: { type: 'task_synced' }, secondKillAfterLines: 4 },
    { name: 'double: mid run, then 10 events into the resume', phase: 'double kill', spec: { lines: Math.floor(events.length / 2) }, secondKillAfterLines: 10 },
  ];
  const fixed = [...typed, ...doubles];
  const byLine = Math.max(0, count - fixed.length);
  const lines: KillPoint[] = [];
  const total = events.length;
  for (let i = 0; i < byLine; i++) {
    // Spread over 2 … total-3 (event 1 is run_created; the last is run_finished). A run's event count
    // varies by a few between runs (how tasks meet in merge batches is timing), so the last points
    // keep a margin: a point past the end of a shorter run would never be reached.
    const n = byLine === 1 ? Math.floor(total / 2) : 2 + Math.round((i * (total - 5)) / (byLine - 1));
    lines.push({ name: `after event ${n} (${events[n - 1]?.type})`, phase: phaseOfLine(events, n), spec: { lines: n } });
  }
  if (count < fixed.length) {
    // Reduced campaign: one point in each part of a run (build, gate, merge queue, resolution), then an even pick, and a double kill.
    const picked = [...REDUCED.map((name) => typed.find((p) => p.name === name)!), ...typed.filter((p) => !REDUCED.includes(p.name))];
    return [...picked.slice(0, Math.max(1, count - 1)), doubles[0]!];
  }
  return [...fixed, ...lines];
}

async function runPoint(point: KillPoint, ref: Reference, delayMs: number, keep: boolean): Promise<PointResult> {
  const started = Date.now();
  const workspace = campaignWorkspace(delayMs);
  const r = workspace.repo;
  const problems: string[] = [];
  let reached = false;
  let killedAtLines: number | undefined;
  try {
    const first = await runAndKill(r.dir, workspace.run, point.spec);
    reached = first.kill.killed;
    killedAtLines = first.kill.lines;
    if (reached) {
      if (point.secondKillAfterLines !== undefined) {
        const second = await runAndKill(r.dir, ['resume', '--cwd', r.dir], { lines: first.kill.lines! + point.secondKillAfterLines });
        if (!second.kill.killed) problems.push(`the second kill was not reached (resume exit ${second.res.code})`);
      }
      // The kill can land just after the run recorded its end: then there is nothing to resume, and it must say so.
      const finishedAnyway = readEvents(r.dir).at(-1)?.type === 'run_finished';
      const { result } = withDeadline(startCli(['resume', '--cwd', r.dir]), TIMEOUT_MS);
      const resumed = await result;
      if (finishedAnyway) {
        if (!/There is no unfinished run to resume here/.test(resumed.stderr)) problems.push(`resume of a finished run said: ${firstAndLastLines(resumed.stderr || resumed.stdout)}`);
      } else if (resumed.code !== ref.code) {
        problems.push(`resume exit ${resumed.code}, reference ${ref.code}: ${firstAndLastLines(resumed.stderr || resumed.stdout)}`);
      }
    } else if (first.res.code !== ref.code) {
      problems.push(`run ended (exit ${first.res.code}) before the point without a kill`);
    }
    problems.push(...(await differencesFromReference(workspace, ref.end)));
  } catch (err) {
    problems.push(`harness error: ${(err as Error).message}`);
  }
  const ok = problems.length === 0;
  if (ok && !keep) r.cleanup();
  return { point, reached, identical: ok, problems, killedAtLines, durationMs: Date.now() - started, dir: ok && !keep ? undefined : r.dir };
}

export async function runCampaign(options: {
  points: number;
  delayMs?: number;
  concurrency?: number;
  keep?: boolean;
  /** Only the points whose name contains one of these (to look into a failure). */
  matching?: string[];
  log?: (line: string) => void;
}): Promise<CampaignResult> {
  const delayMs = options.delayMs ?? 60;
  const log = options.log ?? (() => {});
  const t0 = Date.now();
  const { repo: refRepo, run } = campaignWorkspace(delayMs);
  const ref: Reference = { code: runCli(run).code, ...readReference(refRepo) };
  const referenceMs = Date.now() - t0;
  log(`reference run: exit ${ref.code}, ${ref.events.length} events, ${referenceMs} ms, status ${ref.end.status}`);
  log(`  states ${JSON.stringify(ref.end.states)}; conflicts ${JSON.stringify(ref.end.conflicts)}; merges ${ref.end.mergeCount}`);
  refRepo.cleanup();

  const points = choosePoints(ref.events, options.points).filter((p) => !options.matching?.length || options.matching.some((m) => p.name.includes(m)));
  const results: PointResult[] = new Array(points.length);
  let next = 0;
  const worker = async () => {
    while (next < points.length) {
      const i = next++;
      const res = await runPoint(points[i]!, ref, delayMs, options.keep ?? false);
      results[i] = res;
      log(
        `${String(i + 1).padStart(3)}/${points.length} ${res.identical ? 'ok  ' : 'FAIL'} ${res.reached ? '' : '(not reached) '}${points[i]!.name}` +
          `${res.killedAtLines !== undefined ? ` [killed at ${res.killedAtLines} lines]` : ''} ${res.durationMs} ms` +
          (res.identical ? '' : `\n      ${res.problems.join('\n      ')}\n      repo kept: ${res.dir}`),
      );
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 2 }, worker));
  return { referenceEvents: ref.events.length, referenceMs, referenceCode: ref.code, results, durationMs: Date.now() - t0 };
}

export function formatTable(c: CampaignResult): string {
  const rows: string[][] = [['phase', 'tried', 'killed', 'identical', 'failures']];
  const phases = [...new Set(c.results.map((r) => r.point.phase))];
  const line = (name: string, rs: PointResult[]) => [
    name,
    String(rs.length),
    String(rs.filter((r) => r.reached).length),
    String(rs.filter((r) => r.identical && r.reached).length),
    String(rs.filter((r) => !r.identical).length),
  ];
  for (const p of phases) rows.push(line(p, c.results.filter((r) => r.point.phase === p)));
  rows.push(line('TOTAL', c.results));
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return [fmt(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1, -1).map(fmt), widths.map((w) => '-'.repeat(w)).join('  '), fmt(rows.at(-1)!)].join('\n');
}

async function main() {
  const args = process.argv.slice(2);
  const opt = (name: string, dflt: number) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : dflt;
  };
  const c = await runCampaign({
    points: opt('--points', 60),
    delayMs: opt('--delay', 60),
    concurrency: opt('--parallel-points', 2),
    keep: args.includes('--keep'),
    log: (l) => console.log(l),
  });
  console.log(`\nkill campaign: ${c.results.length} points, reference ${c.referenceEvents} events, ${(c.durationMs / 1000).toFixed(1)} s\n`);
  console.log(formatTable(c));
  const failures = c.results.filter((r) => !r.identical);
  if (failures.length > 0) {
    console.log(`\n${failures.length} failure(s):`);
    for (const f of failures) console.log(`- ${f.point.name}: ${f.problems.join('; ')} (repo: ${f.dir})`);
  }
  process.exit(failures.length > 0 ? 1 : 0);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

/** Where an error says what happened (its first lines) and where it ended (its last). */
function firstAndLastLines(text: string): string {
  const lines = text.trim().split('\n');
  return (lines.length <= 4 ? lines : [...lines.slice(0, 3), '…', lines.at(-1)!]).join(' | ');
}
