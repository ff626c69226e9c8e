import type { HumanAction } from '../../engine/run/engine';
import { TaskloomEngine } from '../../engine/run/engine';
import { UsageError } from '../cliErrors';
import { driveWithProgress } from '../driveWithProgress';
import { parseCommandArgs } from '../parseCommandArgs';

/** `taskloom retry|accept|skip TASK [--run ID] [--note TEXT]`: records the decision, then continues the run. */
export async function decideCommand(action: HumanAction, argv: string[]): Promise<number> {
  const { values, positionals, cwd } = parseCommandArgs(argv, { run: { type: 'string' }, note: { type: 'string' } });
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
