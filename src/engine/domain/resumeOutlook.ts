import { undecidedBaselineFailures } from './gateProjection';
import type { RunState } from './runState';
import { isDone, isMovingOn, isWaitingForHuman, type TaskState } from './taskStates';

/**
 * What Resume would do for a run nobody drives: work on (tasks an agent, a gate or the merge
 * queue would take up, or the integration still to finish), or stop again at once because
 * everything left waits for a person, or nothing at all. A run that never had an approved plan
 * is not resumed (the engine refuses: a plan nobody approved must not start by itself) but
 * started again: planned again, or, when it has a plan (`withPlan`), from that plan.
 * A run whose base fails a gate command that no runner explained waits for the user's choice
 * (`choosesBaseline`): a plain resume would only stop there again, so Resume is not offered;
 * treating the commands as advisory, or keeping them as required, resumes it (or the user cancels it).
 * The editor and the CLI offer Resume only for the first.
 */
export type ResumeOutlook =
  | { kind: 'works'; tasks: number }
  | { kind: 'choosesBaseline'; commands: string[] }
  | { kind: 'waitsForYou'; tasks: number }
  | { kind: 'startAgain'; why: string; withPlan: boolean }
  | { kind: 'nothing'; why: string };

/** Taken up again by a resume: what moves on by itself, and what a stop cancelled or interrupted. */
const resumeTakesUp = (state: TaskState): boolean => isMovingOn(state) || state === 'CANCELLED';

export function resumeOutlook(state: RunState): ResumeOutlook {
  if (state.plan.tasks.length === 0) {
    const why = state.status === 'failed' ? 'planning failed: there is no plan to build' : 'no plan was drafted';
    return { kind: 'startAgain', why, withPlan: false };
  }
  if (!state.planApproved) return { kind: 'startAgain', why: 'it stopped before its plan was approved, so nothing was built', withPlan: true };
  const undecided = undecidedBaselineFailures(state);
  if (undecided.length > 0) return { kind: 'choosesBaseline', commands: undecided };
  const waiting = state.taskOrder.filter((id) => isWaitingForHuman(state.tasks[id]!.state));
  const blocked = new Set<string>();
  const isBlocked = (id: string, seen = new Set<string>()): boolean => {
    if (blocked.has(id)) return true;
    if (seen.has(id)) return false;
    seen.add(id);
    const task = state.tasks[id];
    if (!task) return false;
    const stuck = isWaitingForHuman(task.state) || task.dependsOn.some((dep) => isBlocked(dep, seen));
    if (stuck) blocked.add(id);
    return stuck;
  };
  const movable = state.taskOrder.filter((id) => resumeTakesUp(state.tasks[id]!.state) && !isBlocked(id));
  if (movable.length > 0) return { kind: 'works', tasks: movable.length };
  if (waiting.length > 0) return { kind: 'waitsForYou', tasks: waiting.length };
  const allDone = state.taskOrder.every((id) => isDone(state.tasks[id]!.state));
  if (allDone && state.status !== 'completed') return { kind: 'works', tasks: 0 };
  return { kind: 'nothing', why: state.status === 'completed' ? 'the run is complete' : 'no task is left to work on' };
}
