import { EDITOR_SETTING_KEYS } from '../../protocol/runSettings';
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  ContinueTaskResult,
  ResolveByHandResult,
  ResumeParams,
  RunParams,
  TaskDecisionParams,
  TaskParams,
} from '../../protocol/engineProtocol';
import { isWaitingForHuman } from '../domain/taskStates';
import { assertAgentsInstalled } from '../run/assertAgentInstalled';
import type { TaskloomEngine } from '../run/engine';
import { describeWhatWouldRun, UnknownRunError } from '../run/runProvenance';
import type { RunSession } from '../session/runSession';
import { driveInBackground } from './runDriver';
import type { ServerOutput } from './serverOutput';
import { UserError } from './userError';
import type { WorkspaceHost } from './workspaceHost';
import type { WorkspaceHosts } from './workspaceHosts';
import { RUN_STATUS_WORDS } from '../domain/stateWords';

/** A cancel answers once the run has stopped, or after this long if agents are slow to. */
const CANCEL_WAIT_MS = 15_000;

const ACTIONS = ['retry', 'accept', 'skip'] as const;

/** Continues a stopped run like `taskloom resume`: GREEN work is kept, interrupted tasks start over. */
export async function resume(hosts: WorkspaceHosts, output: ServerOutput, params: ResumeParams): Promise<{ runId: string }> {
  const host = await hosts.forFolder(params.folder);
  return host.withEngine((engine) => {
    const runId = params.runId ?? engine.store.latestUnfinishedRunId();
    if (!runId) throw new UserError('There is no unfinished run to resume here', 'Start a goal instead.');
    host.assertIdle(runId);
    const session = host.session(engine, runId, params.folder);
    const { state } = session;
    if (state.status === 'completed') throw new UserError(`Run ${runId} already completed; there is nothing to resume`);
    if (!state.planApproved) {
      // Nothing was built, and a plan nobody approved must not start by itself: it ends here.
      if (state.status === 'planning') engine.rejectPlan(session, 'stopped before its plan was approved');
      throw new UserError(`Run ${runId} stopped before its plan was approved, so nothing was built`, 'Start the goal again.');
    }
    assertKnownOrTrusted(engine, session, params.trustRun === true);
    assertAgentsInstalled(state.config, state.plan, EDITOR_SETTING_KEYS);
    engine.prepareResume(session, `resumed from the editor (was ${state.status})`);
    driveInBackground(host, session, params.folder, output);
    return { runId };
  });
}

/**
 * Stops the run's planning or driving (agents and gates are stopped; the engine records the
 * run as cancelled, and resume continues it) and answers once it has stopped. A run that only
 * waits for its plan's approval is ended as cancelled.
 */
export async function cancel(hosts: WorkspaceHosts, params: RunParams): Promise<void> {
  const host = await hosts.forFolder(params.folder);
  const work = host.activeWork(params.runId);
  if (work) {
    work.controller.abort();
    await Promise.race([work.done, sleep(CANCEL_WAIT_MS)]);
    return;
  }
  await host.withEngine((engine) => {
    const session = host.session(engine, params.runId, params.folder);
    const { state } = session;
    if (state.status === 'planning' && !state.planApproved) {
      engine.rejectPlan(session, 'cancelled before its plan was approved; nothing was built');
      return;
    }
    throw new UserError(`Run ${state.runId} is not being planned or driven (it is ${RUN_STATUS_WORDS[state.status]})`, 'Only a running run can be cancelled.');
  });
}

/**
 * Records a human's decision on a task that needs one. A run being driven picks it up (or is
 * driven once more); a stopped run is driven on, like `taskloom retry|accept|skip`.
 */
export async function taskDecision(hosts: WorkspaceHosts, output: ServerOutput, params: TaskDecisionParams): Promise<void> {
  if (!ACTIONS.includes(params.action)) throw new UserError(`Unknown decision ${JSON.stringify(params.action)}: use retry, accept or skip`);
  const host = await hosts.forFolder(params.folder);
  await host.withEngine(async (engine) => {
    if (host.activeWork(params.runId)?.kind === 'planning') host.assertIdle(params.runId);
    const session = host.session(engine, params.runId, params.folder);
    if (!session.state.tasks[params.taskId]) {
      throw new UserError(`Run ${params.runId} has no task "${params.taskId}"`, `Its tasks: ${session.state.taskOrder.join(', ') || 'none yet'}.`);
    }
    if (!host.activeWork(params.runId)) {
      assertKnownOrTrusted(engine, session, params.trustRun === true);
      assertAgentsInstalled(session.state.config, session.state.plan, EDITOR_SETTING_KEYS);
    }
    const note = typeof params.note === 'string' && params.note.trim() ? params.note.trim() : undefined;
    await engine.recordHumanDecision(session, params.taskId, params.action, note);
    // Looked up again: the drive may have ended while an accepted task's work was committed.
    const work = host.activeWork(params.runId);
    if (work) {
      work.redrive = true;
      return;
    }
    engine.prepareResume(session, `human chose to ${params.action} "${params.taskId}"`);
    driveInBackground(host, session, params.folder, output);
  });
}

/**
 * A person takes over a task the merge queue sent back: its worktree takes in integration and is
 * left to them (HUMAN_RESOLVING). Refused while the engine drives the run and the task's agent may
 * take it up any moment; a task waiting for a person can be taken over at any time.
 */
export async function resolveByHand(hosts: WorkspaceHosts, params: TaskParams): Promise<ResolveByHandResult> {
  const host = await hosts.forFolder(params.folder);
  return host.withEngine(async (engine) => {
    const session = decidableSession(host, engine, params);
    const task = session.task(params.taskId);
    if (host.activeWork(params.runId) && !isWaitingForHuman(task.state)) {
      throw new UserError(`Task "${params.taskId}" is ${task.state}: its agent takes it up next`, 'Cancel the run first to resolve it yourself, or retry it with a note.');
    }
    return engine.resolveByHand(session, params.taskId);
  });
}

/** Checks a hand resolution with the gate; when it passes, the task is queued and the run driven on. */
export async function continueTask(hosts: WorkspaceHosts, output: ServerOutput, params: TaskParams): Promise<ContinueTaskResult> {
  const host = await hosts.forFolder(params.folder);
  return host.withEngine(async (engine) => {
    const session = decidableSession(host, engine, params);
    if (!host.activeWork(params.runId)) {
      assertKnownOrTrusted(engine, session, params.trustRun === true);
      assertAgentsInstalled(session.state.config, session.state.plan, EDITOR_SETTING_KEYS);
    }
    const outcome = await engine.continueAfterHandResolution(session, params.taskId, new AbortController().signal);
    if (!outcome.passed) {
      const failed = outcome.gate.commands.find((c) => c.exitCode !== 0);
      return { passed: false, ...(failed ? { failure: { command: failed.command, exitCode: failed.exitCode, output: failed.output } } : {}) };
    }
    const work = host.activeWork(params.runId);
    if (work) work.redrive = true;
    else {
      engine.prepareResume(session, `human resolved "${params.taskId}" by hand`);
      driveInBackground(host, session, params.folder, output);
    }
    return { passed: true };
  });
}

function decidableSession(host: WorkspaceHost, engine: TaskloomEngine, params: TaskParams): RunSession {
  if (host.activeWork(params.runId)?.kind === 'planning') host.assertIdle(params.runId);
  const session = host.session(engine, params.runId, params.folder);
  if (!session.state.tasks[params.taskId]) {
    throw new UserError(`Run ${params.runId} has no task "${params.taskId}"`, `Its tasks: ${session.state.taskOrder.join(', ') || 'none yet'}.`);
  }
  return session;
}


/**
 * A run not started by Taskloom on this machine (a `.taskloom/` that came with the repository)
 * is driven only once the user saw what would run and agreed (`trustRun`); it is then known.
 */
function assertKnownOrTrusted(engine: TaskloomEngine, session: RunSession, trustRun: boolean): void {
  if (engine.isKnownRun(session)) return;
  if (!trustRun) {
    throw new UnknownRunError(session.runId, describeWhatWouldRun(session.state), 'Check what it would run; resume it anyway only if you trust this repository.');
  }
  engine.trustRun(session);
}
