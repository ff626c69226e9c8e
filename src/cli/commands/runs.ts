import { TaskloomEngine } from '../../engine/run/engine';
import { EXIT } from '../cliErrors';
import { dim, table, yellow } from '../format';
import { parseCommandArgs } from '../parseCommandArgs';

export async function runsCommand(argv: string[]): Promise<number> {
  const { values, cwd } = parseCommandArgs(argv, { json: { type: 'boolean' } });
  const engine = await TaskloomEngine.open(cwd, { command: 'taskloom runs', readOnly: true });
  try {
    const runs = engine.store.listRuns();
    for (const w of engine.warnings) process.stderr.write(yellow(`warning: ${w}\n`));
    if (values.json) {
      process.stdout.write(`${JSON.stringify(runs, null, 2)}\n`);
    } else if (runs.length === 0) {
      process.stdout.write(`No runs yet in ${engine.repo.root}. Start one with: taskloom run --plan FILE\n`);
    } else {
      const rows = [['run', 'status', 'updated', 'events', 'goal']];
      for (const r of runs) rows.push([r.runId, r.status, r.updatedAt.replace('T', ' ').slice(0, 19), String(r.lastSeq), oneLine(r.goal, 80)]);
      process.stdout.write(`${table(rows)}\n${dim(`${runs.length} run(s)`)}\n`);
    }
    return EXIT.ok;
  } finally {
    engine.close();
  }
}

/** A goal in a table cell: one line, cut short. */
function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
