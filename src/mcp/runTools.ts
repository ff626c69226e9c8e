import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { appliedAs } from '../engine/text/applyWords';
import { applyIntegration } from '../engine/usecases/applyIntegration';
import { decideTask } from '../engine/usecases/decideTask';
import { namedOrNewestRun } from '../engine/usecases/namedRun';
import { approvePlan } from '../engine/usecases/planApproval';
import type { McpWorkspace } from './mcpWorkspace';
import { answer, errorAnswer, type ToolAnswer } from './mcpText';
import { progressReporter } from './progress';
import { startGoal, underWay } from './startGoal';
import { START_GOAL_INPUT } from './startGoalInput';

const runId = z.string().min(1).describe('The run, as taskloom_listRuns names it');

/** The tools that change a run: start, approve, decide, apply. Each calls its use case and words the outcome. */
export function registerRunTools(server: McpServer, workspace: McpWorkspace): void {
  server.registerTool(
    'taskloom_startGoal',
    {
      description:
        "Start a Taskloom run from a goal or a plan file, with the agents, gate commands and budgets of `taskloom run` (the repository's settings fill in the rest). Answers with the run id and the plan to approve (taskloom_approvePlan); with autoApprove the run starts at once, in the background.",
      inputSchema: START_GOAL_INPUT,
    },
    (input, extra) => tool(() => startGoal(workspace, input, progressReporter(extra))),
  );
  server.registerTool(
    'taskloom_approvePlan',
    {
      description: "Approve the plan a run waits with (as taskloom_startGoal or taskloom_needsYou showed it) and drive the run in the background; follow it with taskloom_runState, or subscribe to its trace resource.",
      inputSchema: { runId },
    },
    ({ runId }) =>
      tool(() =>
        workspace.withDoor((door) => {
          const { session } = approvePlan(door, { runId, by: 'human' });
          workspace.driveInBackground(door.engine, session);
          return `Plan approved. ${underWay(runId)}`;
        }),
      ),
  );
  server.registerTool(
    'taskloom_decide',
    {
      description: 'Decide on a task that needs you (see taskloom_needsYou): retry it (with a note for its agent), accept its work as it is, or skip it and what depends on it. The run then goes on in the background.',
      inputSchema: { runId: runId.optional(), taskId: z.string().min(1), action: z.enum(['retry', 'accept', 'skip']), note: z.string().optional().describe('For retry: what the agent should do differently') },
    },
    (input) =>
      tool(() =>
        workspace.withDoor(async (door) => {
          const outcome = await decideTask(door, input);
          if (outcome.kind === 'readyToDrive') workspace.driveInBackground(door.engine, outcome.session);
          const decided = outcome.kind === 'readyToDrive' ? outcome.session.runId : namedOrNewestRun(door.engine.store, input.runId);
          return `Decided: ${input.action} ${input.taskId}. ${underWay(decided)}`;
        }),
      ),
  );
  server.registerTool(
    'taskloom_apply',
    { description: "Land a completed run on the user's current branch (merge history: one commit per task joined by a merge commit; squash: the task commits on the branch itself). Answers what landed; a run not completed is refused.", inputSchema: { runId: runId.optional(), history: z.enum(['merge', 'squash']).optional() } },
    (input) =>
      tool(() =>
        workspace.withDoor(async (door) => {
          const applied = await applyIntegration(door, input);
          if (applied.alreadyApplied) return `Run ${applied.runId} was applied to ${applied.branch} before; nothing changed.`;
          const left = applied.leftOut.length ? ` Left out (skipped): ${applied.leftOut.map((t) => t.taskId).join(', ')}.` : '';
          return `Applied run ${applied.runId} to ${applied.branch} as ${appliedAs(applied.history, applied.commits)}, now at ${applied.commit.slice(0, 10)}; ${applied.files.length} files changed.${left}`;
        }),
      ),
  );
}

/** Every tool answers: a typed error becomes a tool error with its message and hint, and the server keeps serving. */
export async function tool(work: () => Promise<string> | string): Promise<ToolAnswer> {
  try {
    return answer(await work());
  } catch (error) {
    return errorAnswer(error);
  }
}
