import type { CallTally, ReviewTally, RunSummary, TaskSummary } from '../domain/runSummary';
import { addUsage, totalTokens, ZERO_USAGE } from '../domain/usage';
import { dollarsPer, humanDecisionCounts, plannedTasks, ratio, sumValues } from './statsFigures';

/**
 * The figures of one agent, model or role across runs. Each figure is credited to whoever did the
 * work it counts: calls to the call's own agent, model and role; tasks (merged, first-pass gate,
 * human decisions, cost per merged task) to the agent and model of the task's actor, and to the
 * role "actor"; reviews and send-backs to the critic that gave them, and to the role "critic".
 */
export interface GroupStats {
  calls: number;
  failedCalls: number;
  costUsd: number;
  tokens: number;
  callMs: number;
  tasks: number;
  merged: number;
  firstPassGateRate: number | null;
  reviews: number;
  sendBackRate: number | null;
  humanDecisions: number;
  humanDecisionsPerMergedTask: number | null;
  /** Every call for its tasks (all roles), over its merged tasks. */
  costUsdPerMergedTask: number | null;
  /** The runs in which it made a call or did a task, oldest first. */
  runIds: string[];
}

type GroupKey = 'byAgent' | 'byModel' | 'byRole';

interface Gathered {
  calls: CallTally[];
  reviews: ReviewTally[];
  tasks: TaskSummary[];
  runIds: Set<string>;
}

/** One entry per agent (or model, or role) named by a call, a review or a task's actor, in name order. */
export function groupStats(runs: readonly RunSummary[], key: GroupKey, actorOf: (t: TaskSummary) => string | undefined): Record<string, GroupStats> {
  const groups = new Map<string, Gathered>();
  const gather = (name: string, runId: string): Gathered => {
    const g = groups.get(name) ?? { calls: [], reviews: [], tasks: [], runIds: new Set<string>() };
    g.runIds.add(runId);
    groups.set(name, g);
    return g;
  };
  for (const r of runs) {
    for (const [name, tally] of Object.entries(r.calls[key])) gather(name, r.runId).calls.push(tally);
    for (const [name, tally] of Object.entries(r.reviews[key])) gather(name, r.runId).reviews.push(tally);
    for (const task of plannedTasks(r)) {
      const name = actorOf(task);
      if (name !== undefined) gather(name, r.runId).tasks.push(task);
    }
  }
  const names = [...groups.keys()].sort();
  return Object.fromEntries(names.map((name) => [name, figures(groups.get(name)!)]));
}

function figures(g: Gathered): GroupStats {
  const usage = g.calls.reduce((u, c) => addUsage(u, c.usage), { ...ZERO_USAGE });
  const merged = g.tasks.filter((t) => t.merged).length;
  const gated = g.tasks.filter((t) => t.firstGatePassed !== undefined);
  const reviews = g.reviews.reduce((n, r) => n + r.reviews, 0);
  const decisions = sumValues(humanDecisionCounts(g.tasks));
  return {
    calls: g.calls.reduce((n, c) => n + c.calls, 0),
    failedCalls: g.calls.reduce((n, c) => n + c.failedCalls, 0),
    costUsd: usage.costUsd,
    tokens: totalTokens(usage),
    callMs: g.calls.reduce((n, c) => n + c.callMs, 0),
    tasks: g.tasks.length,
    merged,
    firstPassGateRate: ratio(gated.filter((t) => t.firstGatePassed).length, gated.length),
    reviews,
    sendBackRate: ratio(
      g.reviews.reduce((n, r) => n + r.sendBacks, 0),
      reviews,
    ),
    humanDecisions: decisions,
    humanDecisionsPerMergedTask: ratio(decisions, merged),
    costUsdPerMergedTask: dollarsPer(
      g.tasks.reduce((u, t) => addUsage(u, t.usage), { ...ZERO_USAGE }).costUsd,
      merged,
    ),
    runIds: [...g.runIds],
  };
}
