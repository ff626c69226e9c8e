import { candidateChoiceOpen } from '../domain/candidates';
import { TASK_STATE_WORDS } from '../domain/stateWords';
import { assertAgentsInstalled } from '../run/assertAgentInstalled';
import type { RunGoesOn } from './decideTask';
import type { FrontDoor } from './frontDoor';
import { namedOrNewestRun } from './namedRun';
import { assertRunTrusted } from './runTrust';
import { CandidateChoiceError, RunBusyError, UnknownTaskError } from './useCaseErrors';

export interface ChooseCandidateParams {
  /** By default the newest run. */
  runId?: string;
  taskId: string;
  /** The candidate's number (1-based), as the ledger and the run view show it. */
  candidate: number;
  /** Who chose, and why (for the ledger). */
  by: string;
  note?: string;
  /** The user saw what a run not started here would run, and agreed (see assertRunTrusted). */
  trustRun?: boolean;
}

/**
 * A person chooses another of a task's candidates before it merges: recorded as `candidate_picked`
 * by a person, with a retry of the task, which takes the chosen candidate's work into the task's
 * worktree and sends it through the gate (served from the candidate's own) and the critic's review
 * to the merge queue. Only while the task waits for the person (it needs them, was merged unreviewed
 * or was cancelled) and the run is not driven here; the other candidates stay on their branches.
 */
export async function chooseCandidate(door: FrontDoor, params: ChooseCandidateParams): Promise<Extract<RunGoesOn, { kind: 'readyToDrive' }>> {
  const { engine } = door;
  const { taskId, candidate } = params;
  const runId = namedOrNewestRun(engine.store, params.runId);
  const busy = door.backgroundWork(runId);
  if (busy) throw new RunBusyError(runId, busy);
  const session = door.session(runId);
  const task = session.state.tasks[taskId];
  if (!task) throw new UnknownTaskError(runId, taskId, session.state.taskOrder);
  const entries = task.candidates?.entries ?? [];
  if (entries.length === 0) throw new CandidateChoiceError(`Task "${taskId}" ran as one try, not as candidates`, 'Retry it with a note instead, or run it with --candidates.');
  const chosen = entries.find((c) => c.candidate === candidate);
  if (!chosen?.commit) {
    const finished = entries.filter((c) => c.commit).map((c) => c.candidate);
    throw new CandidateChoiceError(`Task "${taskId}" has no candidate ${candidate} with work to take`, `Its candidates with work: ${finished.join(', ') || 'none'}.`);
  }
  if (!candidateChoiceOpen(task)) {
    throw new CandidateChoiceError(
      `Task "${taskId}" is ${TASK_STATE_WORDS[task.state]}: its candidate can be chosen only while it waits for you`,
      'Stop the task first if it is running; a task that merged keeps its work.',
    );
  }
  assertRunTrusted(engine, session, params.trustRun === true);
  assertAgentsInstalled(session.state.config, session.state.plan, door.settingNames);
  const note = params.note?.trim();
  const passed = entries.filter((c) => c.passed).map((c) => c.candidate);
  session.emit({ type: 'candidate_picked', taskId, candidate, by: 'person', reasons: `chosen by ${params.by}${note ? `: ${note}` : ''}`, passed });
  await engine.recordHumanDecision(session, taskId, 'retry', note || undefined);
  engine.prepareResume(session, `${params.by} chose candidate ${candidate} of "${taskId}"`);
  return { kind: 'readyToDrive', session };
}
