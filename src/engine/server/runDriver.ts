import type { RunEndStatus } from '../domain/events';
import type { DriveOutcome } from '../run/engineShutdown';
import type { Plan } from '../domain/plan';
import { errorText, TaskloomError } from '../domain/taskloomError';
import type { RunStatus } from '../domain/runState';
import type { RunSession } from '../session/runSession';
import type { ServerOutput } from './serverOutput';
import type { ActiveWork, WorkspaceHost } from './workspaceHost';

/** After these a run is stopped; anything else means background work died mid-way. */
const STOPPED: readonly RunStatus[] = ['completed', 'needs_human', 'cancelled', 'failed', 'paused'];

/** Pass ends after which a decision made meanwhile is not worth another pass. */
const FINAL_PASS: readonly DriveOutcome[] = ['completed', 'cancelled', 'paused', 'interrupted'];

/** Planning stopped because someone cancelled it; the run ended cancelled. */
export class PlanningCancelledError extends Error {
  constructor(runId: string) {
    super(`Planning of run ${runId} was cancelled; nothing was built`);
    this.name = 'PlanningCancelledError';
  }
}

/**
 * Has the planner draft the run's plan, holding the lock meanwhile. Resolves with the plan once
 * the run waits for approvePlan or rejectPlan (status planning, plan in its state; the lock is
 * no longer needed). A failure ends the run failed with the reason and rejects with the error
 * (a PlanningError is the user's to act on); a cancel ends it cancelled and rejects with
 * PlanningCancelledError.
 */
export function startPlanning(host: WorkspaceHost, session: RunSession, folder: string, output: ServerOutput): { work: ActiveWork; plan: Promise<Plan> } {
  let settle!: { resolve: (plan: Plan) => void; reject: (error: unknown) => void };
  const plan = new Promise<Plan>((resolve, reject) => (settle = { resolve, reject }));
  const work = host.startWork(session.runId, 'planning', folder, async (engine, work) => {
    const { signal } = work.controller;
    try {
      const drafted = await engine.planGoal(session, signal);
      // Retired before the answer goes out, so an approvePlan right after it finds the run idle.
      host.retire(session.runId, work);
      settle.resolve(drafted);
    } catch (error) {
      if (signal.aborted) {
        endRun(session, 'cancelled', 'cancelled while planning; nothing was built', output);
        host.retire(session.runId, work);
        settle.reject(new PlanningCancelledError(session.runId));
        return;
      }
      output.log(`Planning run ${session.runId} failed: ${errorText(error as Error)}`);
      recordEnd(session, output, () => engine.endFailedPlanning(session, error as Error));
      host.retire(session.runId, work);
      settle.reject(error);
    }
  });
  return { work, plan };
}

/**
 * Drives the run to an end in the background. A human decision recorded while it drove
 * (taskDecision sets `redrive`) may land after the orchestrator last looked at the tasks, so
 * the run is driven once more unless it completed, was cancelled or paused. An engine error
 * ends the run failed with the message, so the editor never shows it running forever.
 */
export function driveInBackground(host: WorkspaceHost, session: RunSession, folder: string, output: ServerOutput): void {
  host.startWork(session.runId, 'driving', folder, async (engine, work) => {
    const { signal } = work.controller;
    try {
      for (;;) {
        const status = await engine.drive(session, signal);
        if (!work.redrive || signal.aborted || FINAL_PASS.includes(status)) break;
        work.redrive = false;
        engine.prepareResume(session, 'continuing with a decision made while the run was driven');
      }
      // In the same tick as the last look at `redrive`: a later decision starts a new drive.
      host.retire(session.runId, work);
    } catch (error) {
      output.log(`Driving run ${session.runId} failed: ${(error as Error).stack ?? String(error)}`);
      endRun(session, 'failed', error instanceof TaskloomError ? errorText(error) : `engine error: ${(error as Error).message}`, output);
    }
  });
}

/** Records how the run ended, unless it already has; a store that cannot take it any more is logged. */
function endRun(session: RunSession, status: RunEndStatus, summary: string, output: ServerOutput): void {
  recordEnd(session, output, () => session.emit({ type: 'run_finished', status, summary }));
}

function recordEnd(session: RunSession, output: ServerOutput, record: () => void): void {
  try {
    if (STOPPED.includes(session.state.status)) return;
    record();
  } catch (error) {
    output.log(`Could not record the end of run ${session.runId}: ${(error as Error).stack ?? String(error)}`);
  }
}
