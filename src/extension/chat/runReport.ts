import type { RunState } from '../../engine/domain/runState';
import { taskStateWords } from '../../engine/domain/stateWords';
import { countSentence, countTasks } from '../../engine/domain/taskCounts';
import { counted } from '../../engine/text/counted';
import type { RunListEntry } from '../../protocol/engineProtocol';
import { attentionItems } from '../state/attention';
import { formatCost, formatTokens, phaseWords, plainText, runPhase } from '../tree/presentation';

/**
 * A run's state as Markdown for a language model or the chat: where the run is, each task in
 * the one vocabulary of task states (a step no engine runs is interrupted, as in the tree), and what waits for you. Agent text is shown as plain text.
 */
export function runReport(folder: string, summary: RunListEntry, state: RunState): string {
  const lines = [
    `**Run ${state.runId}**: ${plainText(state.goal, 300)}`,
    '',
    `Status: ${phaseWords(runPhase(summary, state))}; ${countSentence(countTasks(state))}; ` +
      `${formatTokens(state.usage.total)}, ${formatCost(state.usage.total.costUsd)}.`,
    '',
    '| task | title | state | last reason |',
    '| --- | --- | --- | --- |',
    ...state.taskOrder.map((id) => {
      const task = state.tasks[id]!;
      return `| \`${id}\` | ${cell(task.title)} | ${taskStateWords(task.state, { driven: summary.active, status: state.status })} | ${cell(task.lastReason)} |`;
    }),
  ];
  const waiting = attentionItems(folder, summary, state);
  if (waiting.length) lines.push('', 'Needs you:', ...waiting.map((item) => `- ${plainText(item.label, 200)} (${plainText(item.reason, 200)})`));
  return lines.join('\n');
}

/** The drafted plan as Markdown: tasks in order with what they build on. */
export function planReport(state: RunState): string {
  return [
    `**Plan for** ${plainText(state.goal, 300)} (${counted(state.plan.tasks.length, 'task')})`,
    '',
    ...state.plan.tasks.map(
      (t, i) => `${i + 1}. \`${t.id}\` ${plainText(t.title, 200)}${t.dependsOn.length ? ` — after ${t.dependsOn.map((d) => `\`${d}\``).join(', ')}` : ''}`,
    ),
  ].join('\n');
}

const cell = (text: string): string => plainText(text, 160).replaceAll('|', '\\|') || '—';
