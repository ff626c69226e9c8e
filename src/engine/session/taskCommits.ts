import type { PlanTask } from '../domain/plan';
import { commitMessage } from '../workspace/commitMessage';
import type { RunSession } from './runSession';

/**
 * The messages of the commits Taskloom makes for a task: titled by the task, with the task, the
 * run, the agent and the attempt in trailers (see commitMessage), so the history reads like the
 * work and the provenance stays machine-readable.
 */
export const taskCommits = (session: RunSession, task: Pick<PlanTask, 'id' | 'title'>) => {
  const run = session.runId;
  return {
    attempt: (attempt: number, agent: string) => commitMessage(task.title, { task: task.id, run, agent, attempt }),
    resolution: (files: string[], agent: string) =>
      commitMessage(`Merge the integration branch into "${task.title}"`, { task: task.id, run, agent }, `Resolves the conflict in ${files.join(', ')}.`),
    resolvedByHand: () => commitMessage(`Merge the integration branch into "${task.title}"`, { task: task.id, run }, 'Resolved by hand.'),
    handedBack: (attempt: number) => commitMessage(task.title, { task: task.id, run, agent: 'a person', attempt }, 'Done by a person who took the task over, then handed it back.'),
    acceptedAsIs: () => commitMessage(task.title, { task: task.id, run }, 'Accepted by a person as it was.'),
    workInProgress: () => commitMessage(`${task.title} (work in progress)`, { task: task.id, run }),
    takeInIntegration: () => commitMessage(`Merge the integration branch into "${task.title}"`, { task: task.id, run }),
    mergeIntoIntegration: () => commitMessage(`Merge "${task.title}"`, { task: task.id, run }),
    /** The task's whole change as one commit on the user's branch (apply with squash history). */
    squashed: () => commitMessage(task.title, { task: task.id, run }),
  };
};

/** "claude (claude-sonnet-4)": the agent and model of a call, for the Taskloom-Agent trailer. */
export const agentLabel = (agent: string, model: string | undefined): string => (model && model !== agent ? `${agent} (${model})` : agent);
