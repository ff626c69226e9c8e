import type { RunnerInput } from '../../src/engine/agents/runner';
import { launchUnconfined } from '../../src/engine/process/launcher';

/** One call's input for an agent runner: the actor's first attempt at task t1, allowed to write; `fields` over it. */
export function runnerInput(cwd: string, fields: Partial<RunnerInput> = {}): RunnerInput {
  return {
    role: 'actor',
    prompt: 'Do the task.',
    cwd,
    taskId: 't1',
    attempt: 1,
    access: 'workspace-write',
    idleTimeoutMs: 30_000,
    signal: new AbortController().signal,
    launch: launchUnconfined,
    ...fields,
  };
}
