import type { ApplyHistory } from '../domain/events';
import { planApply } from '../deliver/applyPlan';
import { applyRun } from '../deliver/applyRun';
import { assertNotBusy } from './busyRuns';
import type { FrontDoor } from './frontDoor';
import { namedOrNewestRun } from './namedRun';

export interface ApplyParams {
  /** By default the newest run. */
  runId?: string;
  /** `merge` (default): one commit per task joined by a merge commit; `squash`: the task commits on the branch itself. */
  history?: ApplyHistory;
}

/** A task the run leaves out of what it applies (skipped), by id and title. */
export interface LeftOutTask {
  taskId: string;
  title: string;
}

/** What applying a completed run to the user's current branch would make: what a door shows to ask with. */
export interface ApplyPreview {
  runId: string;
  branch: string;
  history: ApplyHistory;
  commits: number;
  /** Tasks merged into the run's integration branch. */
  merged: number;
  alreadyApplied: boolean;
  leftOut: LeftOutTask[];
}

/** Works out what applying the run would make, changing nothing (refused as applying is: a run not completed, a dirty tree…). */
export async function previewApply(door: FrontDoor, params: ApplyParams): Promise<ApplyPreview> {
  const runId = namedOrNewestRun(door.engine.store, params.runId);
  const session = door.session(runId);
  const history = params.history ?? 'merge';
  const plan = await planApply(session, door.engine.repo.root, history);
  return {
    runId,
    branch: plan.repo.headRef,
    history,
    commits: plan.commits,
    merged: session.state.integration.merged.length,
    alreadyApplied: plan.alreadyApplied,
    leftOut: plan.leftOut.map(({ taskId, title }) => ({ taskId, title })),
  };
}

export interface Applied {
  runId: string;
  branch: string;
  history: ApplyHistory;
  /** The branch's head now. */
  commit: string;
  files: string[];
  /** Commits the branch received, counted on it. */
  commits: number;
  /** It was applied before (or merged by hand): nothing changed now. */
  alreadyApplied: boolean;
  leftOut: LeftOutTask[];
}

/**
 * Lands a completed run on the branch checked out in the repository (refused on a dirty tree; a
 * conflict is aborted), each task as one clean commit, and records the apply in the run's log.
 */
export async function applyIntegration(door: FrontDoor, params: ApplyParams): Promise<Applied> {
  const runId = namedOrNewestRun(door.engine.store, params.runId);
  assertNotBusy(door, runId);
  const applied = await applyRun(door.session(runId), door.engine.repo.root, params.history ?? 'merge');
  const { branch, history, commit, files, commits, alreadyApplied, leftOut } = applied;
  return { runId, branch, history, commit, files, commits, alreadyApplied, leftOut: leftOut.map(({ taskId, title }) => ({ taskId, title })) };
}
