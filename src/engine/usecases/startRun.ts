import type { Plan } from '../domain/plan';
import type { ExtraRunSettings, RunSettings } from '../domain/runSettings';
import { assertAgentsInstalled } from '../run/assertAgentInstalled';
import { runConfigFromSettings } from '../run/runConfigFromSettings';
import type { RunSession } from '../session/runSession';
import type { FrontDoor } from './frontDoor';
import { PlanningCancelledError } from './useCaseErrors';

export interface StartParams {
  /** What the run is for: the planner's goal, or the goal of the plan handed in. */
  goal: string;
  /** A plan a person wrote (a plan file, loaded): it waits for approval as a drafted one does. Without one the planner drafts it (draftPlan). */
  plan?: Plan;
  /** The user's choices for the run (the editor's settings, the CLI's flags); what is unset takes the defaults. */
  settings: RunSettings & ExtraRunSettings;
  /** Where relative paths in the settings are taken from: the workspace folder, the CLI's --cwd. */
  baseDir: string;
}

export interface StartedRun {
  session: RunSession;
  /** The plan handed in, now waiting for approval; undefined when the planner is to draft one. */
  plan?: Plan;
}

/**
 * Creates a run from the user's settings, checking first that the agents it calls are there. Its
 * plan waits for approval (approvePlan); without one the run waits for the planner (draftPlan),
 * which each door runs its own way (the CLI in the foreground with progress, the server in the background).
 */
export function startRun(door: FrontDoor, params: StartParams): StartedRun {
  const { engine } = door;
  const config = runConfigFromSettings(params.settings, { baseDir: params.baseDir, repoRoot: engine.repo.root, labels: door.settingNames });
  assertAgentsInstalled(config, params.plan, door.settingNames);
  const plan = params.plan && { ...params.plan, goal: params.goal };
  return { session: door.createRun(plan, config, params.goal), ...(plan ? { plan } : {}) };
}

/**
 * Has the planner draft the run's plan (the critic reviews it); the run then waits for approval.
 * A planning that fails ends the run failed (keeping the planner's answer, for a person to fix and
 * start from) and throws its error; a cancelled one (`signal`) ends it cancelled and throws
 * PlanningCancelledError. Only a run still being planned is ended: one ended meanwhile keeps its end.
 */
export async function draftPlan(door: FrontDoor, session: RunSession, signal: AbortSignal): Promise<Plan> {
  try {
    return await door.engine.planGoal(session, signal);
  } catch (error) {
    const stillPlanning = session.state.status === 'planning';
    if (signal.aborted) {
      if (stillPlanning) session.emit({ type: 'run_finished', status: 'cancelled', summary: 'cancelled while planning; nothing was built' });
      throw new PlanningCancelledError(session.runId);
    }
    if (stillPlanning) door.engine.endFailedPlanning(session, error as Error);
    throw error;
  }
}
