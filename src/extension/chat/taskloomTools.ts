import * as vscode from 'vscode';
import { clipEnd, goalHeadline } from '../../engine/text/clip';
import { approveAndDrive, planGoal } from '../plans/planning';
import { reviewPlan } from '../plans/planReview';
import type { Services } from '../services';
import { isAutopilot, readRunSettings } from '../settings';
import { planReport, runReport } from './runReport';

/** The tools' names, as package.json's `languageModelTools` declares them. */
export const START_GOAL_TOOL = 'taskloom_startGoal';
export const RUN_STATE_TOOL = 'taskloom_runState';

export interface StartGoalToolInput {
  goal: string;
  folder?: string;
}
export interface RunStateToolInput {
  runId?: string;
  folder?: string;
}

/**
 * Language model tools, so an agent (Copilot's agent mode) can hand a goal to Taskloom and read
 * how its run is doing. Starting a goal asks the user first; the plan still waits for their
 * approval in the editor, as any plan does (unless they turned autopilot on).
 */
export function registerTaskloomTools(services: Services): vscode.Disposable[] {
  return [
    vscode.lm.registerTool<StartGoalToolInput>(START_GOAL_TOOL, {
      prepareInvocation: ({ input }) => {
        const folder = folderOf(services, input.folder);
        const agent = (folder ? readRunSettings(folder).agent : undefined) ?? 'the configured agent';
        return {
          invocationMessage: `Planning "${short(input.goal)}" with Taskloom`,
          confirmationMessages: {
            title: 'Start a Taskloom goal?',
            message: new vscode.MarkdownString(
              `Taskloom's planner (${agent}) drafts a plan for **${short(input.goal)}**` +
                `${folder ? ` in \`${vscode.workspace.asRelativePath(folder)}\`` : ''}. You approve the plan before any task runs.`,
            ),
          },
        };
      },
      invoke: async ({ input }) => text(await startGoalFromTool(services, input)),
    }),
    vscode.lm.registerTool<RunStateToolInput>(RUN_STATE_TOOL, {
      prepareInvocation: ({ input }) => ({ invocationMessage: input.runId ? `Reading Taskloom run ${input.runId}` : 'Reading the latest Taskloom run' }),
      invoke: async ({ input }) => text(await runStateFromTool(services, input)),
    }),
  ];
}

/** Plans the goal into a new run and says what happens next. */
export async function startGoalFromTool(services: Services, input: StartGoalToolInput): Promise<string> {
  const goal = typeof input.goal === 'string' ? input.goal.trim() : '';
  if (goal.length < 3) throw new Error('Give the goal in a few words (the "goal" input), e.g. "add rate limiting to the API, with tests".');
  const folder = requireFolder(services, input.folder);
  const planned = await planGoal(services, folder, { goal });
  if ('cancelled' in planned) throw new Error('The user cancelled the planning; nothing was built.');
  if ('failed' in planned) throw new Error(`Taskloom could not plan the goal: ${planned.failed}`);
  const { result } = planned;
  const ref = { folder, runId: result.runId };
  const state = await services.controller.state(folder, result.runId);
  if (isAutopilot(folder)) {
    await approveAndDrive(services, ref, undefined, 'autopilot');
    return `${state ? planReport(state) : ''}\n\nRun ${result.runId} started (autopilot approved the plan). Read its state with ${RUN_STATE_TOOL}.`;
  }
  void reviewPlan(services, ref);
  return `${state ? planReport(state) : ''}\n\nRun ${result.runId} waits for the user to approve this plan in the editor; nothing runs before. Read its state with ${RUN_STATE_TOOL}.`;
}

/** The named run's state, or the newest run's. */
export async function runStateFromTool(services: Services, input: RunStateToolInput): Promise<string> {
  await services.controller.refreshAll();
  const runs = services.controller.model
    .allRuns()
    .filter((e) => (!input.folder || e.folder === input.folder) && (!input.runId || e.summary.runId === input.runId))
    .sort((a, b) => b.summary.createdAt.localeCompare(a.summary.createdAt));
  const entry = runs[0];
  if (!entry) return input.runId ? `There is no Taskloom run ${input.runId} in this workspace.` : 'There are no Taskloom runs in this workspace yet.';
  const state = await services.controller.state(entry.folder, entry.summary.runId);
  if (!state) return `Run ${entry.summary.runId} could not be read; the Taskloom output channel says why.`;
  return runReport(entry.folder, services.controller.model.run(entry.folder, entry.summary.runId)?.summary ?? entry.summary, state);
}

function folderOf(services: Services, given: string | undefined): string | undefined {
  const folders = services.controller.folders();
  if (given) return folders.find((f) => f === given || vscode.workspace.asRelativePath(f) === given);
  return folders.length === 1 ? folders[0] : undefined;
}

function requireFolder(services: Services, given: string | undefined): string {
  const folder = folderOf(services, given);
  if (folder) return folder;
  const folders = services.controller.folders();
  if (folders.length === 0) throw new Error('Taskloom needs a workspace folder with a git repository; none is open.');
  throw new Error(`Say which workspace folder (the "folder" input): ${folders.join(', ')}${given ? ` (not ${given})` : ''}.`);
}

const short = (goal: string): string => clipEnd(goalHeadline(goal), 80);
const text = (value: string) => new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(value)]);
