import fs from 'node:fs';
import type { AgentRole } from '../domain/events';
import type { Decision, RunState, TaskView } from '../domain/runState';
import type { TokenUsage } from '../domain/usage';
import { totalTokens } from '../domain/usage';
import { writeFileAtomic } from '../io/atomicWrite';
import { codeText, inlineText } from './inertText';
import type { RunPaths } from './paths';
import { counted } from '../text/counted';
import { decisionCommands, wordDecision } from '../text/decisionWords';
import { RUN_STATUS_WORDS } from '../domain/stateWords';

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

/** The merge queue's steps (queued, batches, merges, conflicts, bisections) read as one story, in the Integration section. */
const INTEGRATION_KINDS: ReadonlySet<Decision['kind']> = new Set(['merge', 'conflict', 'integration', 'queue']);
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
      `status **${RUN_STATUS_WORDS[state.status]}**`,
      `base ${codeText(state.baseCommit.slice(0, 10))} (${inlineText(state.baseRef)})`,
      `started ${state.createdAt.slice(0, 10)} ${state.createdAt.slice(11, 19)} UTC`,
      `last event #${state.lastSeq} at ${when(state.updatedAt)}`,
    ].join(' · '),
    '',
  );
  if (state.pausedReason !== undefined) out.push(`> **Paused:** ${inlineText(state.pausedReason)}`, '');
  if (state.finishedSummary !== undefined) {
    out.push(`> **Finished (${RUN_STATUS_WORDS[state.status]}):** ${inlineText(state.finishedSummary)}`, '');
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
    const list = byTask.get(d.taskId);
    if (list) list.push(d);
    else byTask.set(d.taskId, [d]);
  }

  out.push('## Run', '');
  out.push(decisionBlock(runLevel, day, when), '');

  for (const t of tasksInOrder(state)) {
    out.push(`## Task ${codeText(t.id)}: ${inlineText(t.title)}`, '');
    out.push(`State **${t.state}**: ${inlineText(t.lastReason)}${t.branch ? ` · branch ${codeText(t.branch)}` : ''}`, '');
    const decisions = byTask.get(t.id) ?? [];
    out.push(decisions.length ? decisionBlock(decisions, day, when) : 'No decisions yet.', '');
  }

  if (integration.length || state.integration.branch) {
    out.push('## Integration', '');
    if (state.integration.branch) out.push(`Branch ${codeText(state.integration.branch)}`, '');
    out.push(integration.length ? decisionBlock(integration, day, when) : 'Nothing merged yet.', '');
  }

  out.push('## Usage', '');
  out.push('| Role | Input | Output | Cache read | Cache write | Total tokens | Cost |', '| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const role of ROLES) {
    const usage = state.usage.byRole[role];
    if (usage) out.push(usageRow(role, usage));
  }
  out.push(usageRow('**Total**', state.usage.total), '', `${counted(state.usage.calls, 'agent call')}.`, '');

  if (state.warnings.length) {
    out.push('## Warnings', '', state.warnings.map((w) => `- ${inlineText(w)}`).join('\n'), '');
  }
  return out.join('\n');
}

/**
 * Whether run.json and DECISIONS.md were both written for this run at its current seq (they
 * are rendered from the state alone, so they need no rewrite). Reads run.json and the head of
 * DECISIONS.md; anything missing or unreadable counts as out of date.
 */
export function derivedFilesUpToDate(paths: RunPaths, state: RunState): boolean {
  try {
    const runJson = JSON.parse(fs.readFileSync(paths.runJson, 'utf8')) as Partial<RunStatusFile>;
    if (runJson.runId !== state.runId || runJson.lastSeq !== state.lastSeq) return false;
    return DECISIONS_SEQ.exec(readHead(paths.decisions, DECISIONS_HEAD_BYTES))?.[1] === String(state.lastSeq);
  } catch {
    return false;
  }
}

// The header line of DECISIONS.md names the last event (see renderDecisionsMarkdown).
const DECISIONS_SEQ = /^Run .* · last event #(\d+) at /m;
const DECISIONS_HEAD_BYTES = 64 * 1024;

function readHead(file: string, bytes: number): string {
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const n = fs.readSync(fd, buffer, 0, bytes, 0);
    return buffer.toString('utf8', 0, n);
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes `run.json` and `DECISIONS.md` for the state, each atomically. */
export function writeDerivedFiles(paths: RunPaths, state: RunState): void {
  writeFileAtomic(paths.runJson, `${JSON.stringify(renderRunJson(state), null, 2)}\n`);
  writeFileAtomic(paths.decisions, renderDecisionsMarkdown(state));
}

function tasksInOrder(state: RunState): TaskView[] {
  return state.taskOrder.flatMap((id) => (state.tasks[id] ? [state.tasks[id]] : []));
}

/**
 * The lines of each decision as rendered, kept with the decision: a decision never changes
 * once made, so a rewrite of DECISIONS.md renders only the decisions made since the last one
 * and joins the rest as they were. (Checked against the fields it was made from, in case.)
 */
const renderedDecisions = new WeakMap<Decision, { day: string; at: string; fact: Decision['fact']; text: string }>();

function decisionText(d: Decision, day: string, when: (at: string) => string): string {
  const cached = renderedDecisions.get(d);
  if (cached && cached.day === day && cached.at === d.at && cached.fact === d.fact) return cached.text;
  const { summary, details } = wordDecision(d);
  let text = `- ${when(d.at)} · ${inlineText(summary)}`;
  for (const detail of [...details, ...decisionCommands(d)]) text += `\n  - ${inlineText(detail)}`;
  renderedDecisions.set(d, { day, at: d.at, fact: d.fact, text });
  return text;
}

/** The decisions as one block of lines (joined, not spread: a long run has hundreds of thousands of lines). */
function decisionBlock(decisions: Decision[], day: string, when: (at: string) => string): string {
  if (!decisions.length) return 'Nothing yet.';
  return decisions.map((d) => decisionText(d, day, when)).join('\n');
}

function usageRow(label: string, u: TokenUsage): string {
  const n = (value: number): string => value.toLocaleString('en-US');
  const cost = u.costUsd < 1 ? u.costUsd.toFixed(4) : u.costUsd.toFixed(2);
  return `| ${label} | ${n(u.inputTokens)} | ${n(u.outputTokens)} | ${n(u.cacheReadTokens)} | ${n(u.cacheWriteTokens)} | ${n(totalTokens(u))} | $${cost} |`;
}
