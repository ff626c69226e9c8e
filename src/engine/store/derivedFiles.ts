import type { AgentRole } from '../domain/events';
import type { Decision, RunState, TaskView } from '../domain/runState';
import type { TokenUsage } from '../domain/usage';
import { totalTokens } from '../domain/usage';
import { writeFileAtomic } from './atomicWrite';
import { codeText, inlineText } from './inertText';
import type { RunPaths } from './paths';

/** `run.json`: where the run stands, for scripts and people who do not want to fold the log. */
export interface RunStatusFile {
  runId: string;
  goal: string;
  status: RunState['status'];
  createdAt: string;
  updatedAt: string;
  baseCommit: string;
  baseRef: string;
  planApproved: boolean;
  tasks: Array<{
    id: string;
    title: string;
    dependsOn: string[];
    state: TaskView['state'];
    lastReason: string;
    /** Builds in the current try. */
    attempt: number;
    /** Builds over every try. */
    builds: number;
    gateFailures: number;
    reviewCycles: number;
    acceptedByHuman: boolean;
    skippedByDependency: boolean;
    branch: string | null;
    worktree: string | null;
    usage: TokenUsage;
  }>;
  integration: {
    branch: string | null;
    merged: string[];
    conflicts: Array<{ taskId: string; files: string[] }>;
    /** null until the integration gate has run. */
    gatePassed: boolean | null;
  };
  usage: { total: TokenUsage; byRole: Partial<Record<AgentRole, TokenUsage>>; calls: number };
  pausedReason: string | null;
  finishedSummary: string | null;
  warnings: string[];
  lastSeq: number;
}

export function renderRunJson(state: RunState): RunStatusFile {
  return {
    runId: state.runId,
    goal: state.goal,
    status: state.status,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    baseCommit: state.baseCommit,
    baseRef: state.baseRef,
    planApproved: state.planApproved,
    tasks: tasksInOrder(state).map((t) => ({
      id: t.id,
      title: t.title,
      dependsOn: t.dependsOn,
      state: t.state,
      lastReason: t.lastReason,
      attempt: t.attempt,
      builds: t.attempts.length,
      gateFailures: t.gateFailures,
      reviewCycles: t.reviewCycles,
      acceptedByHuman: t.acceptedByHuman,
      skippedByDependency: t.skippedByDependency,
      branch: t.branch ?? null,
      worktree: t.worktreePath ?? null,
      usage: t.usage,
    })),
    integration: {
      branch: state.integration.branch ?? null,
      merged: state.integration.merged,
      conflicts: state.integration.conflicts,
      gatePassed: state.integration.lastGate?.passed ?? null,
    },
    usage: { total: state.usage.total, byRole: state.usage.byRole, calls: state.usage.calls },
    pausedReason: state.pausedReason ?? null,
    finishedSummary: state.finishedSummary ?? null,
    warnings: state.warnings,
    lastSeq: state.lastSeq,
  };
}

const INTEGRATION_KINDS: ReadonlySet<Decision['kind']> = new Set(['merge', 'conflict', 'integration']);
const ROLES: AgentRole[] = ['planner', 'actor', 'critic'];

/**
 * `DECISIONS.md`: the ledger a person reads to learn what was decided and why. Every piece
 * of text that can come from an agent or the user goes through `inlineText`/`codeText`.
 */
export function renderDecisionsMarkdown(state: RunState): string {
  const day = state.createdAt.slice(0, 10);
  const when = (at: string): string => (at.slice(0, 10) === day ? at.slice(11, 19) : `${at.slice(0, 10)} ${at.slice(11, 19)}`);
  const out: string[] = [];

  out.push(`# Taskloom decisions: ${inlineText(state.goal)}`, '');
  out.push(
    [
      `Run ${codeText(state.runId)}`,
      `status **${state.status.replace('_', ' ')}**`,
      `base ${codeText(state.baseCommit.slice(0, 10))} (${inlineText(state.baseRef)})`,
      `started ${state.createdAt.slice(0, 10)} ${state.createdAt.slice(11, 19)} UTC`,
      `last event #${state.lastSeq} at ${when(state.updatedAt)}`,
    ].join(' · '),
    '',
  );
  if (state.pausedReason !== undefined) out.push(`> **Paused:** ${inlineText(state.pausedReason)}`, '');
  if (state.finishedSummary !== undefined) {
    out.push(`> **Finished (${state.status.replace('_', ' ')}):** ${inlineText(state.finishedSummary)}`, '');
  }

  out.push('## Plan', '');
  if (state.plan.rationale) out.push(inlineText(state.plan.rationale), '');
  out.push('| Task | Title | Depends on | State | Builds | Last reason |', '| --- | --- | --- | --- | --- | --- |');
  for (const t of tasksInOrder(state)) {
    const deps = t.dependsOn.length ? t.dependsOn.map(codeText).join(', ') : '—';
    out.push(`| ${codeText(t.id)} | ${inlineText(t.title)} | ${deps} | ${t.state} | ${t.attempts.length} | ${inlineText(t.lastReason)} |`);
  }
  out.push('', state.planApproved ? 'The plan was approved.' : 'The plan has not been approved yet.', '');

  const runLevel = state.decisions.filter((d) => !INTEGRATION_KINDS.has(d.kind) && d.taskId === undefined);
  const integration = state.decisions.filter((d) => INTEGRATION_KINDS.has(d.kind));
  const byTask = new Map<string, Decision[]>();
  for (const d of state.decisions) {
    if (d.taskId === undefined || INTEGRATION_KINDS.has(d.kind)) continue;
    byTask.set(d.taskId, [...(byTask.get(d.taskId) ?? []), d]);
  }

  out.push('## Run', '');
  out.push(...decisionLines(runLevel, when), '');

  for (const t of tasksInOrder(state)) {
    out.push(`## Task ${codeText(t.id)}: ${inlineText(t.title)}`, '');
    out.push(`State **${t.state}**: ${inlineText(t.lastReason)}${t.branch ? ` · branch ${codeText(t.branch)}` : ''}`, '');
    const decisions = byTask.get(t.id) ?? [];
    out.push(...(decisions.length ? decisionLines(decisions, when) : ['No decisions yet.']), '');
  }

  if (integration.length || state.integration.branch) {
    out.push('## Integration', '');
    if (state.integration.branch) out.push(`Branch ${codeText(state.integration.branch)}`, '');
    out.push(...(integration.length ? decisionLines(integration, when) : ['Nothing merged yet.']), '');
  }

  out.push('## Usage', '');
  out.push('| Role | Input | Output | Cache read | Cache write | Total tokens | Cost |', '| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const role of ROLES) {
    const usage = state.usage.byRole[role];
    if (usage) out.push(usageRow(role, usage));
  }
  out.push(usageRow('**Total**', state.usage.total), '', `${state.usage.calls} agent call(s).`, '');

  if (state.warnings.length) {
    out.push('## Warnings', '', ...state.warnings.map((w) => `- ${inlineText(w)}`), '');
  }
  return out.join('\n');
}

/** Writes `run.json` and `DECISIONS.md` for the state, each atomically. */
export function writeDerivedFiles(paths: RunPaths, state: RunState): void {
  writeFileAtomic(paths.runJson, `${JSON.stringify(renderRunJson(state), null, 2)}\n`);
  writeFileAtomic(paths.decisions, renderDecisionsMarkdown(state));
}

function tasksInOrder(state: RunState): TaskView[] {
  return state.taskOrder.flatMap((id) => (state.tasks[id] ? [state.tasks[id]] : []));
}

function decisionLines(decisions: Decision[], when: (at: string) => string): string[] {
  if (!decisions.length) return ['Nothing yet.'];
  return decisions.flatMap((d) => [
    `- ${when(d.at)} · ${inlineText(d.summary)}`,
    ...(d.details ?? []).map((detail) => `  - ${inlineText(detail)}`),
  ]);
}

function usageRow(label: string, u: TokenUsage): string {
  const n = (value: number): string => value.toLocaleString('en-US');
  const cost = u.costUsd < 1 ? u.costUsd.toFixed(4) : u.costUsd.toFixed(2);
  return `| ${label} | ${n(u.inputTokens)} | ${n(u.outputTokens)} | ${n(u.cacheReadTokens)} | ${n(u.cacheWriteTokens)} | ${n(totalTokens(u))} | $${cost} |`;
}
