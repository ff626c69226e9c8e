import { TaskloomEngine } from '../../engine/run/engine';
import { RunDiskUsage } from '../../engine/workspace/runDiskUsage';
import { EXIT } from '../cliErrors';
import { dim, formatBytes, table, yellow } from '../format';
import { parseCommandArgs } from '../parseCommandArgs';
import { counted } from '../../engine/text/counted';
import { isRunOver } from '../../engine/domain/runState';
import { goalHeadline, oneLine } from '../../engine/text/clip';
import { formatClock } from '../../engine/text/clock';
import { RUN_PHASE_WORDS, runPhase } from '../../engine/domain/runPhase';
import { listRuns } from '../../engine/usecases/readRuns';
import { runGateBrief } from '../../engine/text/gateWords';

/** `taskloom runs [--json]`: the runs here (src/engine/usecases/readRuns.ts), with the disk their worktrees take. */
export async function runsCommand(argv: string[]): Promise<number> {
  const { values, cwd } = parseCommandArgs(argv, { json: { type: 'boolean' } });
  const engine = await TaskloomEngine.open(cwd, { command: 'taskloom runs', readOnly: true });
  try {
    const listing = listRuns(engine.store);
    const disk = new RunDiskUsage();
    const runs = [];
    // A run whose log no longer loads is still listed; its worktrees are then not measured.
    for (const run of listing.runs) runs.push({ ...run, diskBytes: run.state ? (await disk.of(engine.repo.root, run.state)).bytes : 0 });
    for (const w of [...engine.warnings, ...listing.warnings]) process.stderr.write(yellow(`warning: ${w}\n`));
    if (values.json) {
      process.stdout.write(`${JSON.stringify(runs.map(({ state: _state, ...row }) => row), null, 2)}\n`);
    } else if (runs.length === 0) {
      process.stdout.write(`No runs yet in ${engine.repo.root}. Start one with: taskloom run --plan FILE\n`);
    } else {
      const rows = [['run', 'status', 'updated', 'events', 'disk', 'gate', 'goal']];
      for (const r of runs) {
        // A status that says the run goes on is only true while a process holds the workspace lock: otherwise it stopped (resume it).
        const status = RUN_PHASE_WORDS[runPhase(r.status, listing.driven, r.state)];
        rows.push([r.runId, status, formatClock(r.updatedAt), String(r.lastSeq), r.diskBytes ? formatBytes(r.diskBytes) : '-', (r.state && runGateBrief(r.state)) ?? '-', oneLine(goalHeadline(r.goal), 80)]);
      }
      const total = runs.reduce((sum, r) => sum + r.diskBytes, 0);
      const finished = runs.filter((r) => r.diskBytes > 0 && isRunOver(r.status));
      const hint = finished.length ? `; finished runs hold ${formatBytes(finished.reduce((s, r) => s + r.diskBytes, 0))}, \`taskloom gc\` frees what is safe to` : '';
      process.stdout.write(`${table(rows)}\n${dim(`${counted(runs.length, 'run')}, worktrees on disk: ${formatBytes(total)}${hint}`)}\n`);
    }
    return EXIT.ok;
  } finally {
    engine.close();
  }
}

