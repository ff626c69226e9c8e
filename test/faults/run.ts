/**
 * `npm run test:faults`: the whole fault campaign, one table each.
 *   1. the kill campaign (SIGKILL at ≥ 50 points of a reference run, resumed, compared);
 *   2. storage, agent and concurrency faults, one row per kind injected.
 * Exits 1 on any failure.
 *
 *   node --import tsx test/faults/run.ts [--points N] [--parallel-points K] [--delay MS] [--keep] [--only kill|storage|agent|concurrency] [--match NAME]…
 *   (--match: only the kill points whose name contains NAME; repeatable)
 */
import { runAgentFaults } from './agentFaults';
import { runConcurrencyFaults } from './concurrencyFaults';
import { faultProblems, formatFaultTable, type FaultRow } from './faultTable';
import { formatTable, runCampaign } from './killCampaign';
import { runStorageFaults } from './storageFaults';

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const opt = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  const only = opt('--only');
  const wanted = (part: string) => only === undefined || only === part;
  const log = (line: string) => console.log(line);
  const started = Date.now();
  let failures = 0;
  const tables: string[] = [];

  if (wanted('kill')) {
    const c = await runCampaign({
      points: Number(opt('--points') ?? 60),
      delayMs: Number(opt('--delay') ?? 60),
      concurrency: Number(opt('--parallel-points') ?? 2),
      keep: args.includes('--keep'),
      matching: args.flatMap((a, i) => (a === '--match' && args[i + 1] ? [args[i + 1]!] : [])),
      log,
    });
    const failed = c.results.filter((r) => !r.identical || !r.reached);
    failures += failed.length;
    for (const f of failed) log(`- kill point ${f.point.name}: ${f.problems.join('; ') || 'not reached'} (repo: ${f.dir})`);
    tables.push(
      `Kill campaign: ${c.results.length} points, reference run ${c.referenceEvents} events, ${(c.durationMs / 1000).toFixed(0)} s\n\n${formatTable(c)}`,
    );
  }

  const rows: FaultRow[] = [];
  if (wanted('storage')) rows.push(...(await runStorageFaults({ log })));
  if (wanted('agent')) rows.push(...(await runAgentFaults({ log })));
  if (wanted('concurrency')) rows.push(...(await runConcurrencyFaults({ log })));
  if (rows.length) {
    const problems = faultProblems(rows);
    failures += rows.reduce((n, r) => n + r.injected - r.handled, 0);
    for (const p of problems) log(`- ${p}`);
    tables.push(`Faults injected by kind\n\n${formatFaultTable(rows)}`);
  }

  console.log(`\n${tables.join('\n\n')}\n\n${failures} failure(s), ${((Date.now() - started) / 60_000).toFixed(1)} min`);
  return failures > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
