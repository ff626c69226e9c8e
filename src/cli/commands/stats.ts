import type { RunStats } from '../../engine/report/runStats';
import type { GroupStats } from '../../engine/report/statsGroups';
import { counted } from '../../engine/text/counted';
import { categoryWords, decisionCountWords, perMergedWords, rateWords } from '../../engine/text/statsWords';
import { runStats } from '../../engine/usecases/runStats';
import { inspectRepo } from '../../engine/workspace/repoInspector';
import { EXIT } from '../cliErrors';
import { bold, dim, formatDuration, formatUsd, table, yellow } from '../format';
import { parseCommandArgs } from '../parseCommandArgs';

/** `taskloom stats [--since DATE] [--run ID]... [--json]`: src/engine/usecases/runStats.ts, as text or JSON (docs/stats.md). */
export async function statsCommand(argv: string[]): Promise<number> {
  const { values, cwd } = parseCommandArgs(argv, { json: { type: 'boolean' }, since: { type: 'string' }, run: { type: 'string', multiple: true } });
  const repo = await inspectRepo(cwd);
  const { stats, since, warnings } = runStats(repo.root, { since: values.since as string | undefined, runIds: values.run as string[] | undefined });
  for (const w of warnings) process.stderr.write(yellow(`warning: ${w}\n`));
  process.stdout.write(values.json ? `${JSON.stringify({ since, ...stats }, null, 2)}\n` : `${formatStats(stats, since)}\n`);
  return EXIT.ok;
}

const tokens = (n: number) => `${n.toLocaleString('en-US')} tok`;

export function formatStats(s: RunStats, since: string | null): string {
  const scope = since ? ` since ${since}` : '';
  if (s.runs === 0) return `No runs${scope} in this repository. Start one with: taskloom run --plan FILE`;
  const t = s.tasks;
  const out = [
    `${bold(counted(s.runs, 'run'))}${scope}: ${counted(t.planned, 'task')} planned, ${t.merged} merged, ${t.skipped} skipped, ${t.needsYou} waiting for you`,
    `${bold('First-pass gate')}  ${rateWords(s.firstPassGateRate)} of ${counted(s.gatedTasks, 'gated task')}`,
    `${bold('Critic send-back')} ${rateWords(s.sendBackRate)} of ${counted(s.reviews, 'review')}; blocking findings: ${categoryWords(s.sendBackCategories)}`,
    `${bold('Human decisions')}  ${perMergedWords(s.humanDecisionsPerMergedTask)} per merged task (${decisionCountWords(s.humanDecisions)})`,
    `${bold('Per merged task')}  ${perMergedWords(s.costUsdPerMergedTask, formatUsd)}, ${perMergedWords(s.tokensPerMergedTask, tokens)}, ${perMergedWords(s.wallMsPerMergedTask, formatDuration)} from first build to merge`,
    dim(`  all runs: ${formatUsd(s.costUsd)}, ${tokens(s.tokens)}`),
  ];
  for (const [title, groups] of [['By agent', s.byAgent], ['By model', s.byModel], ['By role', s.byRole]] as const) out.push('', bold(title), groupTable(groups));
  if (s.topFailingCommands.length) {
    out.push('', bold('Gate commands that failed most'));
    for (const c of s.topFailingCommands) out.push(`  ${c.command}  ${dim(`failed ${c.failures} of the ${counted(c.ran, 'time')} it ran, in ${counted(c.runIds.length, 'run')}`)}`);
  }
  for (const [title, tests] of [['Tests that failed a gate most', s.topFailingTests], ['Flaky tests', s.flakyTests]] as const) {
    if (!tests.length) continue;
    out.push('', bold(title));
    for (const test of tests) out.push(`  ${test.name}${test.file ? dim(` (${test.file})`) : ''}  ${dim(counted(test.count, 'time'))}`);
  }
  return out.join('\n');
}

function groupTable(groups: Record<string, GroupStats>): string {
  const rows = [['', 'calls', 'cost', 'tasks', 'merged', 'first-pass gate', 'send-back', 'decisions/merged', 'cost/merged']];
  for (const [name, g] of Object.entries(groups)) {
    rows.push([
      `  ${name}`,
      String(g.calls),
      formatUsd(g.costUsd),
      String(g.tasks),
      String(g.merged),
      g.tasks ? rateWords(g.firstPassGateRate) : '-',
      g.reviews ? rateWords(g.sendBackRate) : '-',
      g.tasks ? perMergedWords(g.humanDecisionsPerMergedTask) : '-',
      g.tasks ? perMergedWords(g.costUsdPerMergedTask, formatUsd) : '-',
    ]);
  }
  return table(rows);
}
