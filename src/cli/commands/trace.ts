import { RUN_PHASE_WORDS, type RunPhase } from '../../engine/domain/runPhase';
import { stepWords, timingWords } from '../../engine/report/timingWords';
import { pullRequestWords, type TraceReport } from '../../engine/report/traceReport';
import { TaskloomEngine } from '../../engine/run/engine';
import { ignoredInputWords } from '../../engine/text/decisionWords';
import { traceRun } from '../../engine/usecases/traceRun';
import { EXIT } from '../cliErrors';
import { bold, colorState, dim, formatDuration, formatTokens, formatUsd, table, yellow } from '../format';
import { parseCommandArgs } from '../parseCommandArgs';

/** `taskloom trace [RUN_ID] [--json]`: src/engine/usecases/traceRun.ts, as text or JSON. */
export async function traceCommand(argv: string[]): Promise<number> {
  const { values, positionals, cwd } = parseCommandArgs(argv, { json: { type: 'boolean' } });
  const engine = await TaskloomEngine.open(cwd, { command: 'taskloom trace', readOnly: true });
  try {
    const { report, live, phase, warnings } = traceRun(engine.store, { runId: positionals[0] });
    for (const w of [...engine.warnings, ...warnings]) process.stderr.write(yellow(`warning: ${w}\n`));
    process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatTrace(report, live, phase)}\n`);
    return EXIT.ok;
  } finally {
    engine.close();
  }
}

/**
 * The trace as text. `live`: whether a process drives the run now; without one, its steps under
 * way read "interrupted" and its `phase` (domain/runPhase.ts) "stopped", as in the editor.
 */
export function formatTrace(r: TraceReport, live: boolean, phase: RunPhase): string {
  const status = RUN_PHASE_WORDS[phase];
  const out = [`${bold('Run')} ${r.runId}  ${status}  ${dim(`base ${r.baseRef} @ ${r.baseCommit.slice(0, 10)}`)}`, `${bold('Goal')} ${r.goal}`];
  for (const t of r.tasks) {
    out.push(
      '',
      `${bold(t.id)} ${colorState(t.state, { driven: live, status: r.status })}  ${t.title}`,
      // reviewCycles counts the critic's requests for changes: a first-review approval is 0, not "never reviewed".
      dim(`  attempts ${t.attempts}, gate failures ${t.gateFailures}, changes asked ${t.reviewCycles}, ${formatTokens(t.usage)}, ${formatUsd(t.usage.costUsd)}`),
    );
    if (t.transitions.length) out.push(dim(`  ${timingWords(t.timings, formatDuration)}`));
    const steps = stepWords(t.timings, formatDuration);
    if (steps) out.push(dim(`  steps: ${steps}`));
    for (const tr of t.transitions) {
      out.push(`  ${dim(`#${tr.seq}`)} ${tr.from} → ${tr.to} ${dim(`[${tr.event}]`)} ${tr.reason}`);
    }
  }
  const rows = [['role', 'input', 'output', 'cache read', 'cache write', 'cost']];
  const usageRow = (name: string, u: TraceReport['usage']['total']) => [
    name,
    String(u.inputTokens),
    String(u.outputTokens),
    String(u.cacheReadTokens),
    String(u.cacheWriteTokens),
    formatUsd(u.costUsd),
  ];
  for (const [role, u] of Object.entries(r.usage.byRole)) rows.push(usageRow(role, u));
  // Per agent only when the roles had different agents; one agent's row would repeat the total.
  const agents = Object.entries(r.usage.byAgent ?? {});
  if (agents.length > 1) for (const [agent, u] of agents) rows.push(usageRow(`agent ${agent}`, u));
  rows.push(usageRow('total', r.usage.total));
  out.push('', bold(`Usage (${r.usage.calls} agent calls)`), table(rows));
  if (r.integration.branch) {
    out.push('', `${bold('Integration')} ${r.integration.branch}: merged ${r.integration.merged.join(', ') || 'nothing'}`);
    for (const c of r.integration.conflicts) out.push(`  conflict: ${c.taskId} in ${c.files.join(', ')}`);
    if (r.integration.gatePassed !== undefined) out.push(`  gate ${r.integration.gatePassed ? 'passed' : 'failed'}`);
  }
  for (const pr of r.pullRequests) out.push('', formatPullRequest(pr));
  if (r.summary) out.push('', r.summary);
  return out.join('\n');
}

/** "Pull request #3 open: https://… (head → base); checks pass; approved; 2 fixes pushed". */
export function formatPullRequest(pr: TraceReport['pullRequests'][number]): string {
  const whose = pr.taskId ? ` (${pr.taskId})` : '';
  const watch = pr.watch?.outcome === 'needs_human' ? `\n  needs you: ${pr.watch.reason}` : '';
  const ignored = pr.ignored.map((i) => `\n  ${yellow('ignored')} ${ignoredInputWords(i)}${i.excerpt ? dim(` — "${i.excerpt}"`) : ''}`).join('');
  return `${bold(`Pull request #${pr.number}`)}${whose} ${pr.state ?? 'open'}: ${pr.url}\n  ${dim(`${pr.head} → ${pr.base}`)}; ${pullRequestWords(pr)}${watch}${ignored}`;
}
