import type { ChooseCandidateParams, ContinueTaskResult, ResolveByHandResult, ResumeParams, RunParams, TaskDecisionParams, TaskParams } from '../../protocol/engineProtocol';
import { cancelRun } from '../usecases/cancelRun';
import { chooseCandidate } from '../usecases/chooseCandidate';
import { decideTask, type RunGoesOn } from '../usecases/decideTask';
import { resumeRun } from '../usecases/resumeRun';
import { driveInBackground } from './runDriver';
import type { ServerOutput } from './serverOutput';
import type { WorkspaceHost } from './workspaceHost';
import type { WorkspaceHosts } from './workspaceHosts';

/** Continues a stopped run like `taskloom resume` (src/engine/usecases/resumeRun.ts), driving it in the background. */
export async function resume(hosts: WorkspaceHosts, output: ServerOutput, params: ResumeParams): Promise<{ runId: string }> {
  const host = await hosts.forFolder(params.folder);
  return host.withEngine((engine) => {
    const { session } = resumeRun(host.door(engine, params.folder), { runId: params.runId, trustRun: params.trustRun, ...(params.baselineChoice ? { baselineChoice: params.baselineChoice } : {}) });
    driveInBackground(host, session, params.folder, output);
    return { runId: session.runId };
  });
}

/** Stops the run's planning or driving and answers once it has stopped (src/engine/usecases/cancelRun.ts). */
export async function cancel(hosts: WorkspaceHosts, params: RunParams): Promise<void> {
  const host = await hosts.forFolder(params.folder);
  await host.withEngine((engine) => cancelRun(host.door(engine, params.folder), { runId: params.runId }));
}

/** Retry, accept or skip, like `taskloom retry|accept|skip` (src/engine/usecases/decideTask.ts); the run goes on in the background. */
export async function taskDecision(hosts: WorkspaceHosts, output: ServerOutput, params: TaskDecisionParams): Promise<void> {
  const host = await hosts.forFolder(params.folder);
  await host.withEngine(async (engine) => {
    const decided = await decideTask(host.door(engine, params.folder), params);
    driveOn(host, decided, params.folder, output);
  });
}

/** Another of a task's candidates, like `taskloom choose` (src/engine/usecases/chooseCandidate.ts); the run goes on in the background. */
export async function chooseCandidateRequest(hosts: WorkspaceHosts, output: ServerOutput, params: ChooseCandidateParams): Promise<void> {
  const host = await hosts.forFolder(params.folder);
  await host.withEngine(async (engine) => {
    const chosen = await chooseCandidate(host.door(engine, params.folder), { ...params, by: 'you' });
    driveOn(host, chosen, params.folder, output);
  });
}

/** A person takes over a task the merge queue sent back: its worktree takes in integration and is left to them. */
export async function resolveByHand(hosts: WorkspaceHosts, params: TaskParams): Promise<ResolveByHandResult> {
  const host = await hosts.forFolder(params.folder);
  return host.withEngine(async (engine) => (await decideTask(host.door(engine, params.folder), { ...params, action: 'resolve' })).resolution);
}

/** Checks a hand resolution with the gate; when it passes, the task is queued and the run driven on. */
export async function continueTask(hosts: WorkspaceHosts, output: ServerOutput, params: TaskParams): Promise<ContinueTaskResult> {
  const host = await hosts.forFolder(params.folder);
  return host.withEngine(async (engine) => {
    const outcome = await decideTask(host.door(engine, params.folder), { ...params, action: 'continue' });
    if (outcome.kind === 'resolutionFailsGate') return { passed: false, ...(outcome.failure ? { failure: outcome.failure } : {}) };
    driveOn(host, outcome, params.folder, output);
    return { passed: true };
  });
}

/** The server's way to drive a run a decision let go on: in the background, unless the drive under way took it up. */
function driveOn(host: WorkspaceHost, decided: RunGoesOn, folder: string, output: ServerOutput): void {
  if (decided.kind === 'readyToDrive') driveInBackground(host, decided.session, folder, output);
}
