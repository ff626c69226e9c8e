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
