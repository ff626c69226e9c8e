import type { StopTaskResult, TakeOverResult, TaskParams } from '../../protocol/engineProtocol';
import { EDITOR_SETTING_KEYS } from '../../protocol/runSettings';
import { TaskloomEngine } from '../run/engine';
import { LockHeldError } from '../store/lock';
import { foregroundDoor, type FrontDoor } from '../usecases/frontDoor';
import { stopTask } from '../usecases/stopTask';
import { takeOver } from '../usecases/takeOver';
import { SERVER_COMMAND } from './workspaceHost';
import type { WorkspaceHosts } from './workspaceHosts';

/** Stops one task, like `taskloom stop` (src/engine/usecases/stopTask.ts): in this server's drive, by asking the process that drives the run, or directly. */
export async function stopTaskRequest(hosts: WorkspaceHosts, params: TaskParams): Promise<StopTaskResult> {
  const outcome = await withDoor(hosts, params.folder, (door) => stopTask(door, { runId: params.runId, taskId: params.taskId, by: 'you' }));
  return { ...(outcome.state ? { state: outcome.state } : {}), ...(outcome.kind === 'asked' && outcome.driver ? { askedDriver: outcome.driver } : {}) };
}

/** Takes a task over, like the first half of `taskloom take-over` (src/engine/usecases/takeOver.ts); the editor's terminal runs the CLI for the session. */
export async function takeOverRequest(hosts: WorkspaceHosts, params: TaskParams): Promise<TakeOverResult> {
  const taken = await withDoor(hosts, params.folder, (door) => takeOver(door, { runId: params.runId, taskId: params.taskId, by: 'you' }));
  const { worktree, program, resumes } = taken.session;
  return { worktree, program, ...(resumes ? { resumes } : {}) };
}

/**
 * The use case through this server's door (its drive, or the lock taken for the change); when
 * another process holds the workspace, through a read-only open, so that the use case asks that
 * process instead (the run's inbox).
 */
async function withDoor<T>(hosts: WorkspaceHosts, folder: string, act: (door: FrontDoor) => Promise<T>): Promise<T> {
  const host = await hosts.forFolder(folder);
  try {
    return await host.withEngine((engine) => act(host.door(engine, folder)));
  } catch (error) {
    if (!(error instanceof LockHeldError)) throw error;
  }
  const reader = await TaskloomEngine.open(host.root, { command: SERVER_COMMAND, readOnly: true });
  try {
    return await act(foregroundDoor(reader, EDITOR_SETTING_KEYS));
  } finally {
    reader.close();
  }
}
