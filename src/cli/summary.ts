import { join } from 'node:path';
import type { RunState } from '../engine/domain/runState';
import { buildTraceReport } from '../engine/report/traceReport';
import { bold, colorState, formatDuration, formatTokens, formatUsd, green, red, table, yellow } from './format';

export function runPaths(state: RunState) {
  const dir = join(state.repoRoot, '.taskloom', 'runs', state.runId);
  return { dir, log: join(dir, 'events.jsonl'), decisions: join(dir, 'DECISIONS.md'), runJson: join(dir, 'run.json') };
}

/** The end-of-run summary: tasks, states, attempts, tokens and cost, where to look next. */
export function formatRunSummary(state: RunState): string {
  const report = buildTraceReport(state);
  const rows = [['task', 'state', 'attempts', 'gate fails', 'reviews', 'tokens', 'cost', 'time']];
  for (const t of report.tasks) {
    rows.push([
      t.id,
      colorState(t.state),
      String(t.attempts),
      String(t.gateFailures),
      String(t.reviewCycles),
      formatTokens(t.usage),
      formatUsd(t.usage.costUsd),
      t.durationMs === undefined ? '-' : formatDuration(t.durationMs),
    ]);
  }
  const paths = runPaths(state);
  const status =
    state.status === 'completed' ? green(state.status) : state.status === 'paused' ? yellow(state.status) : red(state.status);
  const lines = [
    '',
    `${bold('Run')} ${state.runId}  ${status}${state.finishedSummary ? ` — ${state.finishedSummary}` : ''}`,
    `${bold('Goal')} ${state.goal}`,
    '',
    table(rows),
    '',
    `${bold('Usage')} ${formatTokens(state.usage.total)} (${state.usage.total.inputTokens} in, ${state.usage.total.outputTokens} out), ${formatUsd(state.usage.total.costUsd)} over ${state.usage.calls} agent call(s)`,
  ];
  if (state.integration.branch) {
    lines.push(`${bold('Integration')} branch ${state.integration.branch}: merged ${state.integration.merged.join(', ') || 'nothing'}`);
    for (const c of state.integration.conflicts) lines.push(red(`  conflict: ${c.taskId} in ${c.files.join(', ')}`));
  }
  lines.push(`${bold('Log')}       ${paths.log}`, `${bold('Decisions')} ${paths.decisions}`);
  lines.push(...nextSteps(state));
  return lines.join('\n');
}

function nextSteps(state: RunState): string[] {
  const cwd = `--cwd ${JSON.stringify(state.repoRoot)}`;
  if (state.status === 'paused') return ['', `Paused (${state.pausedReason}). Continue later with: taskloom resume ${state.runId} ${cwd}`];
  const stuck = state.taskOrder.filter((id) => state.tasks[id]!.state === 'NEEDS_HUMAN');
  if (stuck.length === 0) {
    if (state.status === 'completed') return ['', `Review it with: git diff ${state.baseCommit.slice(0, 10)} ${state.integration.branch}`];
    return [];
  }
  return [
    '',
    yellow('Needs you:'),
    ...stuck.map((id) => `  ${id}: ${state.tasks[id]!.lastReason}`),
    `Then: taskloom retry|accept|skip ${stuck[0]} [--note TEXT] ${cwd}`,
  ];
}
