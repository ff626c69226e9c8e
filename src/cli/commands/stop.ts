import { stopTask, type StopTaskOutcome } from '../../engine/usecases/stopTask';
import { foregroundDoor } from '../../engine/usecases/frontDoor';
import { TASK_STATE_WORDS } from '../../engine/domain/stateWords';
import { EXIT, UsageError } from '../cliErrors';
import { bold, yellow } from '../format';
import { openWriterOrReader } from '../openWorkspace';
import { parseCommandArgs } from '../parseCommandArgs';
import { FLAG_LABELS } from '../runOptions';

export const STOP_USAGE = 'taskloom stop TASK [--run ID]';

/**
 * `taskloom stop TASK [--run ID]`: src/engine/usecases/stopTask.ts. Works from a second terminal
 * while another process drives the run: it then opens the workspace read-only and asks that process.
 */
export async function stopCommand(argv: string[]): Promise<number> {
  const { values, positionals, cwd } = parseCommandArgs(argv, { run: { type: 'string' } });
  const taskId = positionals[0];
  if (!taskId) throw new UsageError(`stop needs a task id: ${STOP_USAGE}`);
  const engine = await openWriterOrReader(cwd, 'taskloom stop');
  try {
    const outcome = await stopTask(foregroundDoor(engine, FLAG_LABELS), { runId: values.run as string | undefined, taskId, by: 'you' });
    process.stdout.write(`${stopWords(outcome, cwd)}\n`);
    return EXIT.ok;
  } finally {
    await engine.drainNotifications();
    engine.close();
  }
}

function stopWords(outcome: StopTaskOutcome, cwd: string): string {
  const { runId, taskId, state } = outcome;
  const run = `--run ${runId} --cwd ${JSON.stringify(cwd)}`;
  if (state === undefined) {
    return yellow(`Asked ${outcome.kind === 'asked' && outcome.driver ? outcome.driver : 'the process that drives run ' + runId} to stop ${taskId}; it has not stopped yet.`) +
      `\nIt acts on it while it drives the run. See where it stands: taskloom trace ${runId}`;
  }
  if (state !== 'NEEDS_HUMAN') return `${bold(taskId)} is ${TASK_STATE_WORDS[state]} now.`;
  return [
    `${bold(taskId)} is stopped: it waits for you, with its work so far.`,
    `Work on it yourself:  taskloom take-over ${taskId} ${run}   (then taskloom continue ${taskId} ${run} hands it back)`,
    `Or give it back:      taskloom retry ${taskId} --note "…" ${run}  ·  taskloom skip ${taskId} ${run}`,
  ].join('\n');
}
