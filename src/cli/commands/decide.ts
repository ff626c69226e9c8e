import type { HumanAction } from '../../engine/run/engine';
import { TaskloomEngine } from '../../engine/run/engine';
import { EXIT, UsageError } from '../cliErrors';
import { confirmForeignRun } from '../confirmForeignRun';
import { driveWithProgress } from '../driveWithProgress';
import { yellow } from '../format';
import { parseCommandArgs } from '../parseCommandArgs';

/** `taskloom retry|accept|skip TASK [--run ID] [--note TEXT] [--yes]`: records the decision, then continues the run. */
export async function decideCommand(action: HumanAction, argv: string[]): Promise<number> {
  const { values, positionals, cwd } = parseCommandArgs(argv, { run: { type: 'string' }, note: { type: 'string' }, yes: { type: 'boolean', short: 'y' } });
  const taskId = positionals[0];
  if (!taskId) throw new UsageError(`${action} needs a task id: taskloom ${action} TASK [--run ID] [--note TEXT]`);
  const engine = await TaskloomEngine.open(cwd, { command: `taskloom ${action}` });
  try {
    const runId = (values.run as string | undefined) ?? engine.store.lastRunId();
    if (!runId) throw new UsageError('There is no run here', 'Start one with: taskloom run --plan FILE');
    const session = engine.session(runId);
    if (!session.state.tasks[taskId]) {
      throw new UsageError(`Run ${runId} has no task "${taskId}"`, `Its tasks: ${session.state.taskOrder.join(', ')}`);
    }
    // Asked before the decision is recorded: the run is driven afterwards.
    if (!(await confirmForeignRun(engine, session, values.yes === true, `taskloom ${action} ${taskId} --run ${runId}`))) return EXIT.needsHuman;
    for (const warning of engine.warnings.splice(0)) process.stderr.write(yellow(`warning: ${warning}\n`));
    try {
      await engine.recordHumanDecision(session, taskId, action, values.note as string | undefined);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    engine.prepareResume(session, `human chose to ${action} "${taskId}"`);
    return await driveWithProgress(engine, session);
  } finally {
    engine.close();
  }
}
