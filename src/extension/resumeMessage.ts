import type { RunListEntry } from '../protocol/engineProtocol';
import { plainText } from './tree/presentation';
import { countSentence } from '../engine/domain/taskCounts';

/** The sentence that says what stopped where: "Run 'add rate limiting' stopped with 3 of 7 tasks merged". */
export function resumeMessage(summary: RunListEntry, phase: string): string {
  const goal = plainText(summary.goal || summary.runId, 80);
  const where = `with ${countSentence(summary)}`;
  switch (phase) {
    case 'paused':
      return `Taskloom run '${goal}' is paused ${where}.`;
    case 'needs_human':
      return `Taskloom run '${goal}' stopped ${where}: some tasks need you.`;
    case 'failed':
      return `Taskloom run '${goal}' failed ${where}.`;
    default:
      return `Taskloom run '${goal}' stopped ${where}.`;
  }
}

const DECIDING = { retry: 'Retrying', accept: 'Accepting', skip: 'Skipping' } as const;

/**
 * Said before a decision drives a cancelled run on (see resumedByDecision): the user stopped the
 * run, so it must not start again without their knowing, nor the tasks the cancel stopped.
 */
export function cancelledRunResumes(decision: keyof typeof DECIDING, taskId: string, alsoTakenUp: string[]): string {
  const others = alsoTakenUp.length
    ? `, and its other cancelled ${alsoTakenUp.length === 1 ? 'task' : 'tasks'} (${alsoTakenUp.join(', ')}) ${alsoTakenUp.length === 1 ? 'starts' : 'start'} again too`
    : '';
  return `The run was cancelled. ${DECIDING[decision]} "${taskId}" resumes it${others}.`;
}
