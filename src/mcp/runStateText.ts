import { RUN_PHASE_WORDS } from '../engine/domain/runPhase';
import type { RunState } from '../engine/domain/runState';
import { taskStateWords } from '../engine/domain/stateWords';
import { countSentence } from '../engine/domain/taskCounts';
import { stepWords, timingWords } from '../engine/report/timingWords';
import { pullRequestWords } from '../engine/report/traceReport';
import { formatDuration, formatTokens, formatUsd } from '../engine/text/amountWords';
import { oneLine } from '../engine/text/clip';
import { counted } from '../engine/text/counted';
import type { RunTrace } from '../engine/usecases/traceRun';
import { needsYouText } from './mcpText';

/**
 * taskloom_runState's answer, for a model: where the run stands, each task in a line, and what to
 * call next with its arguments (what waits for a person, applying a completed run, reading again
 * while it goes on). Ways on that no tool takes are the user's, named as the commands to type.
 */
export function runStateText(state: RunState, { report, live, phase }: RunTrace): string {
  const id = state.runId;
  const run = { driven: live, status: state.status };
  const lines = [
    `Run ${id}: ${RUN_PHASE_WORDS[phase]}${state.finishedSummary ? ` — ${oneLine(state.finishedSummary, 300)}` : ''}`,
    `Goal: ${oneLine(state.goal, 300)}`,
    `Tasks (${countSentence(report.counts)}):`,
    ...report.tasks.map((t) => `  ${t.id}  ${taskStateWords(t.state, run)}  (${counted(t.attempts, 'attempt')}, ${formatTokens(t.usage)}, ${formatUsd(t.usage.costUsd)})  ${oneLine(t.title, 80)}`),
    `Usage: ${formatTokens(report.usage.total)}, ${formatUsd(report.usage.total.costUsd)} over ${counted(report.usage.calls, 'agent call')}.`,
  ];
  if (report.integration.branch) lines.push(`Integration branch ${report.integration.branch}: merged ${report.integration.merged.join(', ') || 'nothing yet'}.`);
  lines.push('', nextText(state, phase));
  return lines.join('\n');
}

function nextText(state: RunState, phase: RunTrace['phase']): string {
  const id = state.runId;
  if (phase === 'completed') {
    return state.applied ? `Applied to ${state.applied.branch}: nothing is left to do.` : `Next: land it on the user's branch with taskloom_apply { "runId": "${id}" }.`;
  }
  const waits = needsYouText(state);
  if (!waits.startsWith('Nothing')) return `Waits for you. ${waits}`;
  if (phase === 'running' || phase === 'planning' || phase === 'watching') {
    return `Under way: read it again with taskloom_runState { "runId": "${id}" }, or subscribe to taskloom://runs/${id}/trace to hear of each change.`;
  }
  if (phase === 'paused' || phase === 'stopped') return `Nothing drives it now. The user resumes it in a terminal: taskloom resume ${id}`;
  return `It ended ${RUN_PHASE_WORDS[phase]}; the trace says why: taskloom_trace { "runId": "${id}" }.`;
}

/** taskloom_trace's answer and the trace resource: each task's transitions with their reasons, its timings, and the usage. */
export function traceText({ report, live, phase }: RunTrace): string {
  const run = { driven: live, status: report.status };
  const lines = [`Run ${report.runId}: ${RUN_PHASE_WORDS[phase]} (base ${report.baseRef} @ ${report.baseCommit.slice(0, 10)})`, `Goal: ${report.goal}`];
  for (const t of report.tasks) {
    lines.push('', `${t.id} ${taskStateWords(t.state, run)}: ${t.title}`);
    lines.push(`  attempts ${t.attempts}, gate failures ${t.gateFailures}, changes asked ${t.reviewCycles}, ${formatTokens(t.usage)}, ${formatUsd(t.usage.costUsd)}`);
    if (t.transitions.length) lines.push(`  ${timingWords(t.timings, formatDuration)}`);
    const steps = stepWords(t.timings, formatDuration);
    if (steps) lines.push(`  steps: ${steps}`);
    lines.push(...t.transitions.map((tr) => `  #${tr.seq} ${tr.from} → ${tr.to} [${tr.event}] ${tr.reason}`));
  }
  lines.push('', `Usage: ${formatTokens(report.usage.total)}, ${formatUsd(report.usage.total.costUsd)} over ${counted(report.usage.calls, 'agent call')}`);
  for (const [role, usage] of Object.entries(report.usage.byRole)) lines.push(`  ${role}: ${formatTokens(usage)}, ${formatUsd(usage.costUsd)}`);
  if (report.integration.branch) {
    lines.push('', `Integration ${report.integration.branch}: merged ${report.integration.merged.join(', ') || 'nothing'}`);
    lines.push(...report.integration.conflicts.map((c) => `  conflict: ${c.taskId} in ${c.files.join(', ')}`));
    if (report.integration.gatePassed !== undefined) lines.push(`  gate ${report.integration.gatePassed ? 'passed' : 'failed'}`);
  }
  for (const pr of report.pullRequests) lines.push('', `Pull request #${pr.number}${pr.taskId ? ` (${pr.taskId})` : ''} ${pr.state ?? 'open'}: ${pr.url}; ${pullRequestWords(pr)}`);
  if (report.summary) lines.push('', report.summary);
  return lines.join('\n');
}
