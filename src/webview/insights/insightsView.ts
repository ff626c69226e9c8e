// The Insights page: the figures of `taskloom stats` as charts a person reads at a glance. Each
// bar is a button that opens the run behind it (the newest of its runs, for a figure over several).
import type { GroupStats } from '../../engine/report/statsGroups';
import type { RunRow, RunStats } from '../../engine/report/runStats';
import { counted } from '../../engine/text/counted';
import { decisionCountWords, perMergedWords, rateWords } from '../../engine/text/statsWords';
import { h, s } from '../runView/dom';

type OpenRuns = (runIds: readonly string[]) => void;

interface Bar {
  /** A run's id (as the Runs view shows it: its start time and a short tail), or an agent's, a model's or a role's name. */
  label: string;
  /** 0..1 of the chart's width. */
  share: number;
  value: string;
  runIds: readonly string[];
  title: string;
}

const usd = (v: number) => `$${v.toFixed(v < 1 ? 4 : 2)}`;

export function renderInsights(stats: RunStats, openRuns: OpenRuns): HTMLElement {
  if (stats.runs === 0) return h('p', { class: 'insights-empty' }, 'No runs in this repository yet. Start one with Taskloom: Start Goal.');
  const t = stats.tasks;
  return h(
    'div',
    { class: 'insights' },
    h('h1', {}, 'Insights'),
    h(
      'p',
      { class: 'insights-summary' },
      `${counted(stats.runs, 'run')}: ${counted(t.planned, 'task')} planned, ${t.merged} merged, ${t.skipped} skipped, ${t.needsYou} waiting for you. ` +
        `First-pass gate ${rateWords(stats.firstPassGateRate)}, critic send-back ${rateWords(stats.sendBackRate)}, ` +
        `${perMergedWords(stats.costUsdPerMergedTask, usd)} per merged task.`,
    ),
    chart('cost-over-time', 'Cost per merged task, run by run', costOverTime(stats.perRun), openRuns),
    chart('first-pass-by-agent', 'First-pass gate rate by agent', rateBars(stats.byAgent), openRuns),
    chart('first-pass-by-role', 'First-pass gate and send-back rate by role', roleBars(stats.byRole), openRuns),
    chart('decisions', `Where your decisions happen (${decisionCountWords(stats.humanDecisions)})`, decisionBars(stats.perRun), openRuns),
  );
}

function costOverTime(runs: readonly RunRow[]): Bar[] {
  const most = Math.max(0, ...runs.map((r) => r.costUsdPerMergedTask ?? 0));
  return runs.map((r) => ({
    label: r.runId,
    share: most > 0 ? (r.costUsdPerMergedTask ?? 0) / most : 0,
    value: perMergedWords(r.costUsdPerMergedTask, usd),
    runIds: [r.runId],
    title: `Run ${r.runId}: ${usd(r.costUsd)} for ${counted(r.tasks.merged, 'merged task')}`,
  }));
}

function rateBars(groups: Record<string, GroupStats>): Bar[] {
  return Object.entries(groups)
    .filter(([, g]) => g.tasks > 0)
    .map(([name, g]) => ({ label: name, share: g.firstPassGateRate ?? 0, value: rateWords(g.firstPassGateRate), runIds: g.runIds, title: `${name}: ${counted(g.tasks, 'task')} as actor, ${g.merged} merged` }));
}

function roleBars(roles: Record<string, GroupStats>): Bar[] {
  const actor = roles.actor;
  const critic = roles.critic;
  return [
    ...(actor ? [{ label: 'actor: first-pass gate', share: actor.firstPassGateRate ?? 0, value: rateWords(actor.firstPassGateRate), runIds: actor.runIds, title: counted(actor.tasks, 'task') }] : []),
    ...(critic ? [{ label: 'critic: send-back', share: critic.sendBackRate ?? 0, value: rateWords(critic.sendBackRate), runIds: critic.runIds, title: counted(critic.reviews, 'review') }] : []),
  ];
}

function decisionBars(runs: readonly RunRow[]): Bar[] {
  const most = Math.max(0, ...runs.map((r) => r.humanDecisions));
  return runs
    .filter((r) => r.humanDecisions > 0)
    .map((r) => ({ label: r.runId, share: most > 0 ? r.humanDecisions / most : 0, value: counted(r.humanDecisions, 'decision'), runIds: [r.runId], title: `Run ${r.runId}` }));
}

const WIDTH = 240;
const ROW = 22;

function chart(kind: string, title: string, bars: readonly Bar[], openRuns: OpenRuns): HTMLElement {
  const section = h('section', { class: `insights-chart ${kind}`, 'data-chart': kind }, h('h2', {}, title));
  if (bars.length === 0) {
    section.append(h('p', { class: 'insights-none' }, 'Nothing to show yet.'));
    return section;
  }
  for (const bar of bars) {
    const runId = bar.runIds.at(-1)!;
    const opens = bar.runIds.length === 1 ? `open run ${runId}` : `choose one of its ${bar.runIds.length} runs`;
    const svg = s('svg', { class: 'bar', width: WIDTH, height: ROW - 6, viewBox: `0 0 ${WIDTH} ${ROW - 6}`, 'aria-hidden': 'true' }, s('rect', { x: 0, y: 0, width: bar.share > 0 ? Math.max(2, Math.round(bar.share * WIDTH)) : 0, height: ROW - 6, rx: 2 }));
    const button = h('button', { class: 'insights-bar', type: 'button', 'data-run': runId, title: `${bar.title} — ${opens}` }, h('span', { class: 'bar-label' }, bar.label), svg, h('span', { class: 'bar-value' }, bar.value));
    button.addEventListener('click', () => openRuns(bar.runIds));
    section.append(button);
  }
  return section;
}
