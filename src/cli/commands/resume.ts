import { FLAG_LABELS } from '../runOptions';
import { TaskloomEngine } from '../../engine/run/engine';
import { foregroundDoor } from '../../engine/usecases/frontDoor';
import { resumeRun, type ReadyToDrive } from '../../engine/usecases/resumeRun';
import { RunCompletedError, StartAgainError } from '../../engine/usecases/useCaseErrors';
import type { BaselineChoice } from '../../engine/domain/events';
import { EXIT, UsageError } from '../cliErrors';
import { withForeignRunConfirmed } from '../confirmForeignRun';
import { driveWithProgress } from '../driveWithProgress';
import { printNewWarnings } from '../engineWarnings';
import { parseCommandArgs } from '../parseCommandArgs';
import { NOTIFY_OPTION, notifyTargets } from '../notifyOption';
import { formatRunSummary } from '../summary';
import { planNextSteps, savePlanToFix } from '../planNextSteps';

/**
 * `taskloom resume [RUN_ID] [--yes] [--advisory | --required]`: src/engine/usecases/resumeRun.ts,
 * driven in the foreground with progress. The run may wait for a choice about the gate commands
 * that fail on its base where no test runner says which tests: --advisory counts them as advisory
 * for this run, --required keeps them as checks of work still to be done.
 */
export async function resumeCommand(argv: string[]): Promise<number> {
  const { values, positionals, cwd } = parseCommandArgs(argv, { yes: { type: 'boolean', short: 'y' }, advisory: { type: 'boolean' }, required: { type: 'boolean' }, ...NOTIFY_OPTION });
  const baselineChoice = baselineChoiceOf(values);
  const withChoice = baselineChoice ? { baselineChoice } : {};
  const engine = await TaskloomEngine.open(cwd, { command: 'taskloom resume', notify: notifyTargets(values) });
  try {
    const door = foregroundDoor(engine, FLAG_LABELS);
    let ready: ReadyToDrive | undefined;
    try {
      ready = await withForeignRunConfirmed(values.yes === true, (runId) => `taskloom resume ${runId}${baselineChoice ? ` --${baselineChoice}` : ''}`, (trustRun) => resumeRun(door, { runId: positionals[0], trustRun, ...withChoice }));
    } catch (error) {
      return notResumed(engine, error);
    }
    printNewWarnings(engine);
    if (!ready) return EXIT.needsHuman;
    return await driveWithProgress(engine, ready.session);
  } finally {
    await engine.drainNotifications();
    engine.close();
  }
}

/** --advisory or --required, the two answers to one question: both at once is no answer. */
function baselineChoiceOf(values: Record<string, unknown>): BaselineChoice | undefined {
  if (values.advisory === true && values.required === true) throw new UsageError('--advisory and --required are two answers to one choice: give one');
  return values.advisory === true ? 'advisory' : values.required === true ? 'required' : undefined;
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
