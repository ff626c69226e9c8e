import { TaskloomEngine } from '../engine/run/engine';
import { LockHeldError } from '../engine/store/lock';

/**
 * The workspace as the log's writer when nobody drives it, else read-only: for a command that
 * works from a second terminal while `taskloom run` (or the editor) drives, and only asks that
 * process to act, through the run's inbox.
 */
export async function openWriterOrReader(cwd: string, command: string): Promise<TaskloomEngine> {
  try {
    return await TaskloomEngine.open(cwd, { command });
  } catch (error) {
    if (!(error instanceof LockHeldError)) throw error;
    return TaskloomEngine.open(cwd, { command, readOnly: true });
  }
}
