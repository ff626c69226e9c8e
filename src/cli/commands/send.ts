import { TaskloomEngine } from '../../engine/run/engine';
import { sendOutcomeWords } from '../../engine/text/messageWords';
import { sendToTask } from '../../engine/usecases/sendToTask';
import { personName } from '../../engine/workspace/personName';
import { EXIT, UsageError } from '../cliErrors';
import { parseCommandArgs } from '../parseCommandArgs';

/**
 * `taskloom send TASK "message" [--run ID]`: src/engine/usecases/sendToTask.ts. It takes no lock
 * (the store is opened read-only, as `trace` does): it works from any terminal while `taskloom
 * run`, `resume` or the editor drives the run, whose drive records the message and delivers it.
 */
export async function sendCommand(argv: string[]): Promise<number> {
  const { values, positionals, cwd } = parseCommandArgs(argv, { run: { type: 'string' } });
  const [taskId, ...words] = positionals;
  if (!taskId || words.length === 0) throw new UsageError('Name the task and say the message: taskloom send TASK "message"');
  const engine = await TaskloomEngine.open(cwd, { command: 'taskloom send', readOnly: true });
  try {
    const from = await personName(engine.repo.root);
    const sent = await sendToTask(engine.store, { runId: values.run as string | undefined, taskId, text: words.join(' '), from });
    process.stdout.write(`${sendOutcomeWords(sent.taskId, sent.runId, sent.outcome)}\n`);
    return sent.outcome.kind === 'refused' ? EXIT.badInput : EXIT.ok;
  } finally {
    engine.close();
  }
}
