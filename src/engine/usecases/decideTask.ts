import type { HumanAction } from '../domain/events';
import { resumedByDecision } from '../domain/humanActions';
import { isWaitingForHuman } from '../domain/taskStates';
import { assertAgentsInstalled } from '../run/assertAgentInstalled';
import type { HandResolution } from '../run/handResolution';
import type { RunSession } from '../session/runSession';
import type { FrontDoor } from './frontDoor';
import { assertRunTrusted } from './runTrust';
import { namedOrNewestRun } from './namedRun';
import { RunBusyError, TaskTakenUpError, UnknownTaskError } from './useCaseErrors';

export interface DecideParams<A extends HumanAction = HumanAction> {
  /** By default the newest run. */
  runId?: string;
  taskId: string;
  /** retry (with a note for the agent), accept as it is, skip (and what depends on it), resolve by hand, continue after resolving (or hand back a task you stopped or took over). */
  action: A;
  note?: string;
  /** The user saw what a run not started here would run, and agreed (see assertRunTrusted). */
  trustRun?: boolean;
}

/** The decision is recorded and the run goes on: driven by the door, or by the drive under way in its background. */
export type RunGoesOn =
  | {
      kind: 'readyToDrive';
      session: RunSession;
      /** Set when the run was cancelled: the decision resumes it, with these other cancelled tasks. */
      resumesCancelledRun?: { alsoTakenUp: string[] };
    }
  | { kind: 'takenUpByDrive' };

/** The task's worktree is the person's now, with integration merged in. */
export interface ResolvingByHand {
  kind: 'resolvingByHand';
  session: RunSession;
  resolution: HandResolution;
}

/** The gate does not pass on the hand resolution yet: the task stays with the person. */
export interface ResolutionFailsGate {
  kind: 'resolutionFailsGate';
  runId: string;
  worktreePath: string | undefined;
  failure: { command: string; exitCode: number | null; output: string } | undefined;
}

export type DecisionOutcome<A extends HumanAction> = A extends 'resolve' ? ResolvingByHand : A extends 'continue' ? RunGoesOn | ResolutionFailsGate : RunGoesOn;

/**
 * A person's decision on a task that needs one. Retry, accept, skip, a hand back (continue on a
 * task they stopped or took over: gated and reviewed in the drive) and a continue whose gate passes
 * let the run go on; resolve hands the task's worktree to the person. A run the door
 * plans right now takes no decision; one it drives right now takes it up in that drive. Before
 * a run is driven on, a run not started here needs the user's trust and its agents must be
 * there; resolve drives nothing (it merges with git, running none of the run's commands).
 */
export async function decideTask<A extends HumanAction>(door: FrontDoor, params: DecideParams<A>): Promise<DecisionOutcome<A>> {
  return (await decide(door, params)) as DecisionOutcome<A>;
}

async function decide(door: FrontDoor, params: DecideParams): Promise<ResolvingByHand | RunGoesOn | ResolutionFailsGate> {
  const { engine } = door;
  const { taskId, action } = params;
  const runId = namedOrNewestRun(engine.store, params.runId);
  if (door.backgroundWork(runId) === 'planning') throw new RunBusyError(runId, 'planning');
  const session = door.session(runId);
  const task = session.state.tasks[taskId];
  if (!task) throw new UnknownTaskError(runId, taskId, session.state.taskOrder);
  const drivenHere = door.backgroundWork(runId) === 'driving';
  if (action === 'resolve') {
    if (drivenHere && !isWaitingForHuman(task.state)) throw new TaskTakenUpError(taskId, task.state);
    return { kind: 'resolvingByHand', session, resolution: await engine.resolveByHand(session, taskId) };
  }
  if (!drivenHere) {
    assertRunTrusted(engine, session, params.trustRun === true);
    assertAgentsInstalled(session.state.config, session.state.plan, door.settingNames);
  }
  const resumesCancelledRun = resumedByDecision(session.state, taskId);
  const handingBack = action === 'continue' && task.state === 'NEEDS_HUMAN';
  if (handingBack) {
    engine.handBack(session, taskId);
  } else if (action === 'continue') {
    const outcome = await engine.continueAfterHandResolution(session, taskId, new AbortController().signal);
    if (!outcome.passed) {
      const failed = outcome.gate.commands.find((c) => c.exitCode !== 0);
      return {
        kind: 'resolutionFailsGate',
        runId,
        worktreePath: session.task(taskId).worktreePath,
        failure: failed ? { command: failed.command, exitCode: failed.exitCode, output: failed.output } : undefined,
      };
    }
  } else {
    await engine.recordHumanDecision(session, taskId, action, params.note?.trim() || undefined);
  }
  // Looked at after the decision: the drive may have ended while it was recorded.
  if (door.takeUpInDrive(runId)) return { kind: 'takenUpByDrive' };
  engine.prepareResume(session, handingBack ? `human handed "${taskId}" back` : action === 'continue' ? `human resolved "${taskId}" by hand` : `human chose to ${action} "${taskId}"`);
  return { kind: 'readyToDrive', session, ...(resumesCancelledRun ? { resumesCancelledRun } : {}) };
}
