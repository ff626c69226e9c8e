import { FLAG_LABELS } from '../runOptions';
import { TaskloomEngine } from '../../engine/run/engine';
import { foregroundDoor } from '../../engine/usecases/frontDoor';
import { resumeRun, type ReadyToDrive } from '../../engine/usecases/resumeRun';
import { RunCompletedError, StartAgainError } from '../../engine/usecases/useCaseErrors';
import { EXIT } from '../cliErrors';
import { withForeignRunConfirmed } from '../confirmForeignRun';
import { driveWithProgress } from '../driveWithProgress';
import { printNewWarnings } from '../engineWarnings';
import { parseCommandArgs } from '../parseCommandArgs';
import { formatRunSummary } from '../summary';
import { planNextSteps, savePlanToFix } from '../planNextSteps';

/**
 * `taskloom resume [RUN_ID] [--yes] [--advisory]`: src/engine/usecases/resumeRun.ts, driven in the
 * foreground with progress. --advisory: the gate commands that fail on the run's base, where no
 * test runner says which tests, count as advisory for this run (the run waits for that choice).
 */
export async function resumeCommand(argv: string[]): Promise<number> {
  const { values, positionals, cwd } = parseCommandArgs(argv, { yes: { type: 'boolean', short: 'y' }, advisory: { type: 'boolean' } });
  const advisory = values.advisory === true ? { advisory: true as const } : {};
  const engine = await TaskloomEngine.open(cwd, { command: 'taskloom resume' });
  try {
    const door = foregroundDoor(engine, FLAG_LABELS);
    let ready: ReadyToDrive | undefined;
    try {
      ready = await withForeignRunConfirmed(values.yes === true, (runId) => `taskloom resume ${runId}${values.advisory ? ' --advisory' : ''}`, (trustRun) => resumeRun(door, { runId: positionals[0], trustRun, ...advisory }));
    } catch (error) {
      return notResumed(engine, error);
    }
    printNewWarnings(engine);
    if (!ready) return EXIT.needsHuman;
    return await driveWithProgress(engine, ready.session);
  } finally {
    engine.close();
  }
}

/** The refusals the CLI words as an outcome rather than an error: a completed run, and one to start again (with the commands that do). */
function notResumed(engine: TaskloomEngine, error: unknown): number {
  printNewWarnings(engine);
  if (error instanceof RunCompletedError) {
    process.stdout.write(`Run ${error.runId} already completed; nothing to resume.\n${formatRunSummary(engine.session(error.runId).state)}\n`);
    return EXIT.ok;
  }
  if (!(error instanceof StartAgainError)) throw error;
  const { state } = engine.session(error.runId);
  const toFix = error.withPlan ? `${JSON.stringify(state.plan, null, 2)}\n` : state.rejectedPlan;
  process.stdout.write(`${error.message}.\n`);
  process.stdout.write(`${planNextSteps(state, toFix !== undefined ? savePlanToFix(state, toFix) : undefined).join('\n')}\n`);
  return EXIT.needsHuman;
}
