import { isValidRunId } from '../store/paths';
import { UserError } from './userError';

/** A run id from the editor, refused unless it could name a run (it becomes a folder name). */
export function checkedRunId(runId: unknown): string {
  if (typeof runId !== 'string' || !isValidRunId(runId)) throw new UserError(`Invalid run id ${JSON.stringify(runId)}`);
  return runId;
}
