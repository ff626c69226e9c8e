import * as vscode from 'vscode';
import { TASK_STATE_WORDS } from '../../engine/domain/stateWords';
import type { TaskState } from '../../engine/domain/taskStates';
import { approvePlanFromEdit } from '../plans/planEdits';
import { approveAndDrive, planGoal } from '../plans/planning';
import { commandCall } from '../runCommand';
import type { Services } from '../services';
import { isAutopilot } from '../settings';
import { awaitsApproval } from '../state/attention';
import type { RunRef } from '../targets/runRef';
import { plainText } from '../tree/presentation';
import { planReport, runReport } from './runReport';
import { runStateFromTool } from './taskloomTools';

/** As package.json's `chatParticipants` declares it: `@taskloom` in the chat. */
export const CHAT_PARTICIPANT_ID = 'taskloom.chat';

/** What the chat handler writes to; a `vscode.ChatResponseStream` is one. */
export type ChatStream = Pick<vscode.ChatResponseStream, 'markdown' | 'progress' | 'button'>;
/** What the handler reads of a `vscode.ChatRequest`. */
export type ChatRequestParts = Pick<vscode.ChatRequest, 'prompt'> & { command?: string };

export function registerChatParticipant(services: Services): vscode.Disposable {
  const participant = vscode.chat.createChatParticipant(CHAT_PARTICIPANT_ID, (request, _context, stream, token) =>
    handleChatRequest(services, { prompt: request.prompt, command: request.command }, stream, token),
  );
  participant.iconPath = vscode.Uri.joinPath(services.context.extensionUri, 'media', 'taskloom.svg');
  return participant;
}

/**
 * `@taskloom <goal>` plans the goal and answers with the plan, to approve from the chat;
 * `/approve` approves the waiting plan and follows the run; `/status` tells how the newest run is
 * doing. A followed run streams its tasks' progress until it stops or needs you.
 */
export async function handleChatRequest(
  services: Services,
  request: ChatRequestParts,
  stream: ChatStream,
  token: vscode.CancellationToken,
): Promise<vscode.ChatResult> {
  if (request.command === 'status') {
    stream.markdown(await runStateFromTool(services, {}));
    return {};
  }
  if (request.command === 'approve') return approveWaitingPlan(services, stream, token);
  const goal = request.prompt.trim();
  if (goal.length < 3) {
    stream.markdown('Tell me the goal, e.g. `@taskloom add rate limiting to the API, with tests`. `/status` shows the newest run.');
    return {};
  }
  const folder = services.controller.folders()[0];
  if (!folder) {
    stream.markdown('Open a folder with a git repository first: Taskloom works in its worktrees.');
    return {};
  }
  stream.progress(`Planning "${goal}"…`);
  const planned = await planGoal(services, folder, { goal });
  if ('cancelled' in planned) {
    stream.markdown('Planning was cancelled; nothing was built.');
    return {};
  }
  if ('failed' in planned) {
    stream.markdown(`The goal could not be planned: ${plainText(planned.failed, 500)}`);
    return { errorDetails: { message: planned.failed } };
  }
  const { result } = planned;
  const ref = { folder, runId: result.runId };
  const state = await services.controller.state(folder, result.runId);
  if (state) stream.markdown(planReport(state));
  if (isAutopilot(folder)) {
    await approveAndDrive(services, ref, undefined, 'autopilot');
    return followRun(services, ref, stream, token);
  }
  stream.markdown('\n\nNothing runs before you approve the plan.');
  stream.button(commandCall('taskloom.approvePlan', 'Approve', ref));
  stream.button(commandCall('taskloom.editPlan', 'Edit Plan', ref));
  stream.button(commandCall('taskloom.showRun', 'Show Run', ref));
  return {};
}

async function approveWaitingPlan(services: Services, stream: ChatStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
  await services.controller.refreshAll();
  const waiting = services.controller.model
    .allRuns()
    .filter((e) => awaitsApproval(e.summary, e.state))
    .sort((a, b) => b.summary.createdAt.localeCompare(a.summary.createdAt))[0];
  if (!waiting) {
    stream.markdown('No plan is waiting for approval.');
    return {};
  }
  const ref = { folder: waiting.folder, runId: waiting.summary.runId };
  stream.markdown(`Approving the plan of **${plainText(waiting.summary.goal, 200)}**${waiting.state ? ` (${waiting.state.plan.tasks.length} tasks)` : ''}.\n`);
  // As the Approve command does: the plan as edited, when an edit of it is open.
  await approvePlanFromEdit(services, ref);
  return followRun(services, ref, stream, token);
}

/** Streams each task's new state until the run stops (completed, needs you, paused, failed) or the chat is cancelled. */
async function followRun(services: Services, ref: RunRef, stream: ChatStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
  const { model } = services.controller;
  const seen = new Map<string, TaskState>();
  stream.progress('Running…');
  await new Promise<void>((resolve) => {
    const update = () => {
      const entry = model.run(ref.folder, ref.runId);
      for (const id of entry?.state?.taskOrder ?? []) {
        const task = entry!.state!.tasks[id]!;
        if (seen.get(id) === task.state) continue;
        if (seen.has(id) || task.state !== 'PENDING') stream.markdown(`\n- \`${id}\`: ${TASK_STATE_WORDS[task.state]}`);
        seen.set(id, task.state);
      }
      if (!entry || !entry.summary.active || token.isCancellationRequested) stop();
    };
    const unsubscribe = model.onDidChange(update);
    const cancelled = token.onCancellationRequested(update);
    function stop() {
      unsubscribe();
      cancelled.dispose();
      resolve();
    }
    update();
  });
  const entry = model.run(ref.folder, ref.runId);
  if (entry?.state) stream.markdown(`\n\n${runReport(ref.folder, entry.summary, entry.state)}`);
  stream.button(commandCall('taskloom.showRun', 'Show Run', ref));
  if (entry?.summary.status === 'completed') stream.button(commandCall('taskloom.applyIntegration', 'Apply', ref));
  return {};
}
