import type { BaselineChoice } from '../domain/events';
import { resumeOutlook } from '../domain/resumeOutlook';
import { assertAgentsInstalled } from '../run/assertAgentInstalled';
import type { RunSession } from '../session/runSession';
import { assertNotBusy } from './busyRuns';
import type { FrontDoor } from './frontDoor';
import { assertRunTrusted } from './runTrust';
import { BaselineChoiceNeededError, NoBaselineChoiceError, NoRunError, RunCompletedError, StartAgainError } from './useCaseErrors';

export interface ResumeParams {
  /** The run to resume; by default the newest unfinished one. */
  runId?: string;
  /** The user saw what a run not started here would run, and agreed (see assertRunTrusted). */
  trustRun?: boolean;
  /**
   * The user's answer to a base that fails a gate command no runner explained, recorded as
   * `baseline_choice` before the run resumes: `advisory` (those commands' failures fail no gate in
   * this run) or `required` (checks of work still to be done: the tasks must make them pass).
   */
  baselineChoice?: BaselineChoice;
}

/** A run made ready to drive: the front door drives it its own way (the CLI in the foreground, the server in the background). */
export interface ReadyToDrive {
  session: RunSession;
}

/**
 * Makes a stopped run ready to drive again: GREEN work is kept, interrupted tasks start over.
 * A run that never had an approved plan is not resumed but started again (StartAgainError): a
 * plan nobody approved must not start by itself. Such a run still being planned (its plan waiting
 * for approval, or never drafted) is ended cancelled, so it waits no more; one that ended
 * otherwise (a failed planning) keeps how it ended. A run that waits for the user's choice about
 * its base is resumed only with that choice (`baselineChoice`): without it, it would only pause
 * there again (BaselineChoiceNeededError names the three ways on); the choice where none waits is
 * refused too.
 */
export function resumeRun(door: FrontDoor, params: ResumeParams): ReadyToDrive {
  const { engine } = door;
  const runId = params.runId ?? engine.store.latestUnfinishedRunId();
  if (!runId) throw new NoRunError('There is no unfinished run to resume here');
  assertNotBusy(door, runId);
  const session = door.session(runId);
  const { state } = session;
  if (state.status === 'completed') throw new RunCompletedError(runId);
  const outlook = resumeOutlook(state);
  if (outlook.kind === 'startAgain') {
    if (state.status === 'planning') engine.rejectPlan(session, 'stopped before its plan was approved');
    throw new StartAgainError(runId, outlook.why, outlook.withPlan);
  }
  const undecided = outlook.kind === 'choosesBaseline' ? outlook.commands : [];
  const choice = params.baselineChoice;
  if (choice && undecided.length === 0) throw new NoBaselineChoiceError(runId);
  if (!choice && undecided.length > 0) throw new BaselineChoiceNeededError(runId, undecided, state.status === 'paused');
  assertRunTrusted(engine, session, params.trustRun === true);
  assertAgentsInstalled(state.config, state.plan, door.settingNames);
  const was = state.status;
  if (choice) session.emit({ type: 'baseline_choice', commands: undecided, choice });
  engine.prepareResume(session, `resumed (was ${was})${choice ? ` with ${undecided.map((c) => `\`${c}\``).join(', ')} ${choice}` : ''}`);
  return { session };
}
