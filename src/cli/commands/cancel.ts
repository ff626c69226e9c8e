import { TaskloomEngine } from '../../engine/run/engine';
import { cancelRun } from '../../engine/usecases/cancelRun';
import { foregroundDoor } from '../../engine/usecases/frontDoor';
import { getRun } from '../../engine/usecases/readRuns';
import { EXIT } from '../cliErrors';
import { parseCommandArgs } from '../parseCommandArgs';
import { FLAG_LABELS } from '../runOptions';
import { formatRunSummary } from '../summary';

/**
 * `taskloom cancel [RUN_ID]`: src/engine/usecases/cancelRun.ts for a run nobody drives — a plan
 * waiting for approval, or a run paused for a choice about its base. A run the CLI drives is
 * cancelled with Ctrl-C; one another process drives is refused by the workspace lock.
 */
export async function cancelCommand(argv: string[]): Promise<number> {
  const { positionals, cwd } = parseCommandArgs(argv, {});
  const engine = await TaskloomEngine.open(cwd, { command: 'taskloom cancel' });
  try {
    const { runId } = getRun(engine.store, { runId: positionals[0] });
    await cancelRun(foregroundDoor(engine, FLAG_LABELS), { runId });
    process.stdout.write(`${formatRunSummary(engine.session(runId).state)}\n`);
    return EXIT.ok;
  } finally {
    await engine.drainNotifications();
    engine.close();
  }
}
