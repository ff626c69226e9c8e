import { TaskloomEngine } from '../../engine/run/engine';
import { chooseCandidate } from '../../engine/usecases/chooseCandidate';
import { foregroundDoor } from '../../engine/usecases/frontDoor';
import { EXIT, UsageError } from '../cliErrors';
import { withForeignRunConfirmed } from '../confirmForeignRun';
import { driveWithProgress } from '../driveWithProgress';
import { printNewWarnings } from '../engineWarnings';
import { parseCommandArgs } from '../parseCommandArgs';
import { FLAG_LABELS } from '../runOptions';

export const CHOOSE_USAGE = 'taskloom choose TASK CANDIDATE [--note TEXT] [--run ID] [--yes]';

/**
 * `taskloom choose TASK CANDIDATE`: src/engine/usecases/chooseCandidate.ts, then the run driven on
 * in the foreground, as after a retry: the chosen candidate is gated, reviewed and merged.
 */
export async function chooseCommand(argv: string[]): Promise<number> {
  const { values, positionals, cwd } = parseCommandArgs(argv, { run: { type: 'string' }, note: { type: 'string' }, yes: { type: 'boolean', short: 'y' } });
  const [taskId, number] = positionals;
  const candidate = Number(number);
  if (!taskId || !Number.isInteger(candidate) || candidate < 1) throw new UsageError(`choose needs a task id and a candidate's number: ${CHOOSE_USAGE}`);
  const engine = await TaskloomEngine.open(cwd, { command: 'taskloom choose' });
  try {
    const door = foregroundDoor(engine, FLAG_LABELS);
    const params = { runId: values.run as string | undefined, taskId, candidate, by: 'you', note: values.note as string | undefined };
    const chosen = await withForeignRunConfirmed(values.yes === true, (runId) => `taskloom choose ${taskId} ${candidate} --run ${runId}`, (trustRun) => chooseCandidate(door, { ...params, trustRun }));
    printNewWarnings(engine);
    if (!chosen) return EXIT.needsHuman;
    return await driveWithProgress(engine, chosen.session);
  } finally {
    await engine.drainNotifications();
    engine.close();
  }
}
