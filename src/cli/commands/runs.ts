import { TaskloomEngine } from '../../engine/run/engine';
import { RunDiskUsage } from '../../engine/workspace/runDiskUsage';
import { EXIT } from '../cliErrors';
import { dim, formatBytes, table, yellow } from '../format';
import { parseCommandArgs } from '../parseCommandArgs';
import { counted } from '../../engine/text/counted';
import { isRunOver, type RunState } from '../../engine/domain/runState';
import { oneLine } from '../../engine/text/clip';
import { formatClock } from '../../engine/text/clock';
import { RUN_PHASE_WORDS, runPhase } from '../../engine/domain/runPhase';
import { liveLockOwner, taskloomPaths } from '../../engine/store';

export async function runsCommand(argv: string[]): Promise<number> {
  const { values, cwd } = parseCommandArgs(argv, { json: { type: 'boolean' } });
  const engine = await TaskloomEngine.open(cwd, { command: 'taskloom runs', readOnly: true });
  try {
    const disk = new RunDiskUsage();
    const runs = [];
    const states = new Map<string, RunState>();
    for (const entry of engine.store.listRuns()) {
      // A run whose log no longer loads is still listed; its worktrees are then not measured.
      const state = (() => {
        try {
          return engine.store.loadRun(entry.runId).state;
        } catch {
          return undefined;
        }
      })();
      if (state) states.set(entry.runId, state);
      runs.push({ ...entry, diskBytes: state ? (await disk.of(engine.repo.root, state)).bytes : 0 });
    }
    for (const w of engine.warnings) process.stderr.write(yellow(`warning: ${w}\n`));
    if (values.json) {
      process.stdout.write(`${JSON.stringify(runs, null, 2)}\n`);
    } else if (runs.length === 0) {
      process.stdout.write(`No runs yet in ${engine.repo.root}. Start one with: taskloom run --plan FILE\n`);
    } else {
      // A status that says the run goes on is only true while a process holds the workspace lock: otherwise it stopped (resume it).
      const driven = liveLockOwner(taskloomPaths(engine.repo.root).dir) !== undefined;
      const rows = [['run', 'status', 'updated', 'events', 'disk', 'goal']];
      for (const r of runs) {
        const status = RUN_PHASE_WORDS[runPhase(r.status, driven, states.get(r.runId))];
        rows.push([r.runId, status, formatClock(r.updatedAt), String(r.lastSeq), r.diskBytes ? formatBytes(r.diskBytes) : '-', oneLine(r.goal, 80)]);
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

