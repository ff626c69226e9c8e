import { join } from 'node:path';
import { allowedHumanActions } from '../engine/domain/humanActions';
import type { RunState, TaskView } from '../engine/domain/runState';
import type { TokenUsage } from '../engine/domain/usage';
import { isWaitingForHuman } from '../engine/domain/taskStates';
import { buildTraceReport } from '../engine/report/traceReport';
import { bold, colorState, formatDuration, formatTokens, formatUsd, green, red, table, yellow } from './format';
import { counted } from '../engine/text/counted';
import { RUN_STATUS_WORDS } from '../engine/domain/stateWords';
import { resumeOutlook } from '../engine/domain/resumeOutlook';
import { baselineChoiceWords, baseName, baselineWords, cachedGates, flakyTests, listedNames, missedRegressionLines } from '../engine/text/gateWords';

export function runPaths(state: RunState) {
  const dir = join(state.repoRoot, '.taskloom', 'runs', state.runId);
  return { dir, log: join(dir, 'events.jsonl'), decisions: join(dir, 'DECISIONS.md'), runJson: join(dir, 'run.json') };
}

/** The end-of-run summary: tasks, states, attempts, tokens and cost, where to look next. */
export function formatRunSummary(state: RunState): string {
  const report = buildTraceReport(state);
  // "changes asked": how often the critic asked for changes (0 for work it approved at its first review).
  const rows = [['task', 'state', 'attempts', 'gate fails', 'changes asked', 'tokens', 'cost', 'time']];
  for (const t of report.tasks) {
    rows.push([
      t.id,
      colorState(t.state, { driven: true, status: state.status }),
      String(t.attempts),
      String(t.gateFailures),
      String(t.reviewCycles),
      formatTokens(t.usage),
      formatUsd(t.usage.costUsd),
      t.durationMs === undefined ? '-' : formatDuration(t.durationMs),
    ]);
  }
  const paths = runPaths(state);
  const statusWords = RUN_STATUS_WORDS[state.status];
  const status =
    state.status === 'completed' ? green(statusWords) : state.status === 'paused' ? yellow(statusWords) : red(statusWords);
  const lines = [
    '',
    `${bold('Run')} ${state.runId}  ${status}${state.finishedSummary ? ` — ${state.finishedSummary}` : ''}`,
    `${bold('Goal')} ${state.goal}`,
    '',
    table(rows),
    '',
    `${bold('Usage')} ${formatTokens(state.usage.total)} (${tokenParts(state.usage.total)}), ${formatUsd(state.usage.total.costUsd)} over ${counted(state.usage.calls, 'agent call')}`,
  ];
  if (state.integration.branch) {
    lines.push(`${bold('Integration')} branch ${state.integration.branch}: merged ${state.integration.merged.join(', ') || 'nothing'}`);
    for (const c of state.integration.conflicts) lines.push(red(`  conflict: ${c.taskId} in ${c.files.join(', ')}`));
  }
  lines.push(...gateLines(state));
  lines.push(`${bold('Log')}       ${paths.log}`, `${bold('Decisions')} ${paths.decisions}`);
  lines.push(...nextSteps(state));
  return lines.join('\n');
}

/** What is left for the user, each with the exact commands that move it on. */
export function nextSteps(state: RunState): string[] {
  const cwd = `--cwd ${JSON.stringify(state.repoRoot)}`;
  const lines: string[] = [];
  const outlook = resumeOutlook(state);
  if (outlook.kind === 'choosesBaseline') {
    // A plain resume would pause there again: the ways on, each with its command.
    const named = outlook.commands.map((c) => `\`${c}\``).join(', ');
    lines.push('', yellow(`${state.status === 'paused' ? 'Paused' : 'Stopped'}: ${baselineChoiceWords(outlook.commands, baseName(state))}.`));
    lines.push(`  treat ${named} as advisory and resume: taskloom resume --advisory ${state.runId} ${cwd}`);
    lines.push(`  keep ${named} as required and resume: taskloom resume --required ${state.runId} ${cwd}`);
    if (state.status === 'paused') lines.push(`  cancel the run: taskloom cancel ${state.runId} ${cwd}`);
  } else if (state.status === 'paused') lines.push('', `Paused (${state.pausedReason}). Continue later with: taskloom resume ${state.runId} ${cwd}`);
  const waiting = state.taskOrder.map((id) => state.tasks[id]!).filter((t) => isWaitingForHuman(t.state));
  if (waiting.length === 0) {
    if (state.status === 'completed') lines.push('', `Review it with: git diff ${state.baseCommit.slice(0, 10)} ${state.integration.branch}`);
    if (state.status === 'needs_human' && state.finishedCounts?.integrationGatePassed === false) {
      lines.push(
        '',
        yellow(`Needs you: every task is merged, but the integration gate fails on ${state.integration.branch}.`),
        `  Look at it with: git -C ${JSON.stringify(state.repoRoot)} log --oneline ${state.integration.branch}; fix the cause on your branch, or run the gate again with: taskloom resume ${state.runId} ${cwd}`,
      );
    }
    return lines;
  }
  lines.push('', yellow('Needs you:'));
  for (const task of waiting) {
    lines.push(`  ${task.id}: ${whatItNeeds(task)}`);
    for (const command of commandsFor(task, state.runId, cwd)) lines.push(`    ${command}`);
  }
  return lines;
}

function whatItNeeds(task: TaskView): string {
  if (task.state === 'HUMAN_RESOLVING') return `being resolved by hand in ${task.worktreePath ?? 'its worktree'}; edit it, then continue`;
  if (task.queueProblem?.kind === 'conflict') return `merge conflict in ${task.queueProblem.files.join(', ')} — ${task.lastReason}`;
  if (task.queueProblem?.kind === 'integration_gate') return `the integration gate fails with it merged — ${task.lastReason}`;
  return task.lastReason;
}

const COMMAND_OF = {
  retry: (id: string, run: string, cwd: string) => `taskloom retry ${id} --note "…" --run ${run} ${cwd}   (another try, with a note for the agent)`,
  resolve: (id: string, run: string, cwd: string) => `taskloom resolve ${id} --run ${run} ${cwd}   (resolve it yourself in its worktree)`,
  continue: (id: string, run: string, cwd: string) => `taskloom continue ${id} --run ${run} ${cwd}   (check your resolution with the gate, then merge it)`,
  accept: (id: string, run: string, cwd: string) => `taskloom accept ${id} --run ${run} ${cwd}   (take the work as it is)`,
  skip: (id: string, run: string, cwd: string) => `taskloom skip ${id} --run ${run} ${cwd}   (drop it and what depends on it)`,
};

/** A task a person stopped or took over is theirs to hand back, or to work on in its worktree. */
const HAND_BACK = (id: string, run: string, cwd: string) => `taskloom continue ${id} --run ${run} ${cwd}   (hand it back: gate and review what is in its worktree)`;
const TAKE_OVER = (id: string, run: string, cwd: string) => `taskloom take-over ${id} --run ${run} ${cwd}   (work on it yourself, in its agent's session)`;

function commandsFor(task: TaskView, runId: string, cwd: string): string[] {
  const lines = allowedHumanActions(task).map((action) => (action === 'continue' && task.state === 'NEEDS_HUMAN' ? HAND_BACK : COMMAND_OF[action])(task.id, runId, cwd));
  return task.state === 'NEEDS_HUMAN' && task.worktreePath ? [...lines, TAKE_OVER(task.id, runId, cwd)] : lines;
}

/** How the gate judged the run, where there is more to it than exit codes: the baseline, flaky tests, cached gates, missed regressions. */
function gateLines(state: RunState): string[] {
  const lines: string[] = [];
  const base = baseName(state);
  if (state.baseline) {
    const { summary, lines: failing } = baselineWords(state.baseline, base);
    lines.push(`${bold('Baseline')}  ${summary}`, ...failing.map((line) => `  ${line}`));
  }
  const flaky = flakyTests(state);
  if (flaky.length) lines.push(`${bold('Flaky')}     ${yellow(listedNames(flaky, 10))} (failed, then passed alone: not counted as failures)`);
  const cached = cachedGates(state);
  if (cached) lines.push(`${bold('Cached')}    ${counted(cached, 'gate')} served from a gate of the same tree`);
  if (state.missedRegressions) {
    lines.push(red(`${bold('Missed')}    ${counted(state.missedRegressions, 'regression')} the task gates did not run; the integration gate caught them:`));
    lines.push(...missedRegressionLines(state).map((line) => `  ${line}`));
  }
  return lines;
}

/** What the token total is made of, so its parts add up to it. */
function tokenParts(u: TokenUsage): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const cache = u.cacheReadTokens + u.cacheWriteTokens;
  return `${n(u.inputTokens)} in, ${n(u.outputTokens)} out${cache ? `, ${n(cache)} cache` : ''}`;
}
