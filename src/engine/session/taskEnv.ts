import type { RunState } from '../domain/runState';
import { freePort, isPortFree } from '../process/freePort';

/**
 * What a task's processes (its setup, agents and gate) find in their environment, so that parallel
 * tasks can tell themselves apart: dev servers listen on TASKLOOM_PORT instead of all on 3000.
 * Without a task (planning, the integration gate) only the run id.
 */
export function taskEnv(state: RunState, taskId: string | null): Record<string, string> {
  const env: Record<string, string> = { TASKLOOM_RUN_ID: state.runId };
  if (taskId === null) return env;
  env.TASKLOOM_TASK_ID = taskId;
  const port = state.tasks[taskId]?.port;
  if (port !== undefined) env.TASKLOOM_PORT = String(port);
  return env;
}

/**
 * The task's port for this start: the one it has (recorded, so it stays the same across its
 * steps and resumes) while nothing else holds it, else a free one no other task of the run has.
 */
export async function taskPort(state: RunState, taskId: string): Promise<number> {
  const current = state.tasks[taskId]?.port;
  if (current !== undefined && (await isPortFree(current))) return current;
  return freePort(runPorts(state));
}

/** A port for a process of the run that belongs to no task (the integration gate), apart from every task's. */
export const spareRunPort = (state: RunState): Promise<number> => freePort(runPorts(state));

const runPorts = (state: RunState): Set<number> =>
  new Set(Object.values(state.tasks).flatMap((t) => (t.port === undefined ? [] : [t.port])));
