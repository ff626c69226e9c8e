import { allowedHumanActions } from '../engine/domain/humanActions';
import type { NextStep } from '../engine/domain/nextStep';
import type { Plan } from '../engine/domain/plan';
import { RUN_PHASE_WORDS, runPhase } from '../engine/domain/runPhase';
import type { RunState } from '../engine/domain/runState';
import { errorText, TaskloomError } from '../engine/domain/taskloomError';
import { isWaitingForHuman } from '../engine/domain/taskStates';
import { oneLine } from '../engine/text/clip';
import { terminalCommand } from '../commandLine/terminalCommands';
import type { RunListing } from '../engine/usecases/readRuns';
import { mcpSettingNames } from './startGoalInput';

/** A tool's answer: plain text a model can act on; `isError` for what the caller should fix. */
export interface ToolAnswer {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  isError?: boolean;
}

export const answer = (text: string): ToolAnswer => ({ content: [{ type: 'text', text }] });

/** A TaskloomError is the caller's to act on: its words and next steps. Anything else is a bug, said as one. */
export function errorAnswer(error: unknown): ToolAnswer {
  const text =
    error instanceof TaskloomError
      ? [errorText(error), ...error.next.map((step) => `  ${nextStepWords(step)}`)].join('\n')
      : `Taskloom did not expect this (a bug, not your input): ${(error as Error).message ?? String(error)}`;
  return { ...answer(text), isError: true };
}

/** A next step as the tool call that takes it; one no tool takes is the user's, in a terminal. */
function nextStepWords(step: NextStep): string {
  switch (step.kind) {
    case 'apply':
      return `taskloom_apply { "runId": "${step.runId}" }`;
    case 'listRuns':
      return 'taskloom_listRuns';
    case 'startFromPlanFile':
      return 'taskloom_startGoal with a planFile (a plan written into the repository)';
    case 'changeSetting':
      return `set ${mcpSettingNames()[step.setting]}${step.value ? ` to ${step.value}` : ''}`;
    case 'allowConfigFile':
      return 'taskloom config allow   (the user, in a terminal in the repository, after checking what the file sets)';
    default:
      return `${terminalCommand(step, mcpSettingNames())}   (the user, in a terminal: no tool does this)`;
  }
}

export function planText(runId: string, plan: Plan): string {
  const tasks = plan.tasks.map((t) => `  ${t.id}: ${t.title}${t.dependsOn.length ? ` (after ${t.dependsOn.join(', ')})` : ''}`);
  return [`Run ${runId} waits for its plan to be approved.`, `Goal: ${plan.goal}`, ...(plan.rationale ? [plan.rationale] : []), 'Tasks:', ...tasks, `Approve it with taskloom_approvePlan { "runId": "${runId}" }.`].join('\n');
}

/** What waits for a person in the run, each task with the decisions taskloom_decide takes for it now. */
export function needsYouText(state: RunState): string {
  const waiting = state.taskOrder.map((id) => state.tasks[id]!).filter((t) => isWaitingForHuman(t.state));
  const planWaits = state.status === 'planning' && !state.planApproved && state.plan.tasks.length > 0;
  if (!waiting.length && !planWaits) return `Nothing in run ${state.runId} waits for you (it is ${state.status}).`;
  const lines = [`Run ${state.runId}:`];
  if (planWaits) lines.push(`  the plan waits for approval: taskloom_approvePlan { "runId": "${state.runId}" }`);
  for (const task of waiting) {
    const choices = allowedHumanActions(task).filter((a) => a === 'retry' || a === 'accept' || a === 'skip');
    lines.push(`  task ${task.id} (${task.state}): ${oneLine(task.lastReason, 300)}`, `    decide with taskloom_decide, action one of: ${choices.join(', ') || 'none here (resolve it in the editor or the CLI)'}`);
  }
  return lines.join('\n');
}

export function runsText(listing: RunListing): string {
  if (!listing.runs.length) return 'No runs yet in this repository. Start one with taskloom_startGoal.';
  return listing.runs
    .map((r) => `${r.runId}  ${RUN_PHASE_WORDS[runPhase(r.status, listing.driven, r.state)]}  ${r.merged}/${r.total} merged  ${oneLine(r.goal, 80)}`)
    .join('\n');
}
