import type { TranscriptLine } from '../../engine/domain/events';
import type { RunState, TaskView, TranscriptRecord } from '../../engine/domain/runState';
import { runPhase as domainRunPhase, RUN_PHASE_WORDS, type RunPhase } from '../../engine/domain/runPhase';
import { isInterruptedStep, isNotStartedByCancel, taskStateWords, type TaskRunContext } from '../../engine/domain/stateWords';
import type { TaskTimings } from '../../engine/domain/taskTimings';
import type { TaskState } from '../../engine/domain/taskStates';
import { totalTokens, type TokenUsage } from '../../engine/domain/usage';
import type { RunListEntry } from '../../protocol/engineProtocol';
import { displayLine } from '../../engine/text/terminalText';
import { goalHeadline } from '../../engine/text/clip';

/** A codicon id and a theme colour id: how a state looks in the tree and the status bar. */
export interface Look {
  icon: string;
  color?: string;
}

export const TASK_LOOK: Record<TaskState, Look> = {
  PENDING: { icon: 'circle-large-outline', color: 'disabledForeground' },
  BUILDING: { icon: 'loading~spin', color: 'charts.blue' },
  GATING: { icon: 'beaker', color: 'charts.blue' },
  MECHANICAL_FAILED: { icon: 'debug-restart', color: 'charts.orange' },
  CRITIC_REVIEWING: { icon: 'eye', color: 'charts.purple' },
  CHANGES_REQUIRED: { icon: 'comment-discussion', color: 'charts.orange' },
  GREEN: { icon: 'pass', color: 'testing.iconPassed' },
  UNVERIFIED_BY_CRITIC: { icon: 'unverified', color: 'charts.yellow' },
  MERGING: { icon: 'git-merge', color: 'charts.blue' },
  MERGED: { icon: 'pass-filled', color: 'testing.iconPassed' },
  MERGE_CONFLICT: { icon: 'git-compare', color: 'errorForeground' },
  RESOLVING: { icon: 'loading~spin', color: 'charts.purple' },
  INTEGRATION_FAILED: { icon: 'debug-restart', color: 'charts.orange' },
  HUMAN_RESOLVING: { icon: 'person', color: 'charts.yellow' },
  NEEDS_HUMAN: { icon: 'warning', color: 'errorForeground' },
  // A dash, "left out": debug-step-over (the Skip action's icon) reads as a retry arrow at row size.
  SKIPPED: { icon: 'remove', color: 'disabledForeground' },
  CANCELLED: { icon: 'circle-slash', color: 'disabledForeground' },
};

/** A step no engine runs any more (the window or the engine went away): it does not spin. */
export const INTERRUPTED_LOOK: Look = { icon: 'debug-disconnect', color: 'charts.yellow' };

/** How the task looks in its run: interrupted where nothing runs it, cancelled where its run was cancelled before it started. */
export function taskLook(state: TaskState, run: TaskRunContext): Look {
  if (isInterruptedStep(state, run.driven)) return INTERRUPTED_LOOK;
  return isNotStartedByCancel(state, run) ? TASK_LOOK.CANCELLED : TASK_LOOK[state];
}

export const RUN_LOOK: Record<RunPhase, Look> = {
  planning: { icon: 'lightbulb-sparkle', color: 'charts.blue' },
  awaitingApproval: { icon: 'checklist', color: 'charts.yellow' },
  running: { icon: 'loading~spin', color: 'charts.blue' },
  integrating: { icon: 'git-merge', color: 'charts.blue' },
  paused: { icon: 'debug-pause', color: 'charts.yellow' },
  stopped: { icon: 'debug-pause', color: 'charts.yellow' },
  watching: { icon: 'git-pull-request', color: 'charts.green' },
  completed: { icon: 'pass-filled', color: 'testing.iconPassed' },
  needs_human: { icon: 'warning', color: 'errorForeground' },
  cancelled: { icon: 'circle-slash', color: 'disabledForeground' },
  failed: { icon: 'error', color: 'errorForeground' },
};

/** A pull request row: open (watched or not), merged, closed, or handed to the user by its watch. */
export const PULL_REQUEST_LOOK: Record<'open' | 'merged' | 'closed' | 'needsYou', Look> = {
  open: { icon: 'git-pull-request', color: 'charts.green' },
  merged: { icon: 'git-merge', color: 'charts.purple' },
  closed: { icon: 'git-pull-request-closed', color: 'disabledForeground' },
  needsYou: { icon: 'git-pull-request', color: 'errorForeground' },
};


/** A run's phase as the user sees it (domain/runPhase.ts), from its list entry: stopped where no engine drives it. */
export const runPhase = (summary: RunListEntry, state: RunState | undefined): RunPhase => domainRunPhase(summary.status, summary.active, state);

export const phaseWords = (phase: RunPhase): string => RUN_PHASE_WORDS[phase];

/**
 * A run's row: its phase and count first, so they show at the sidebar's default width, then its
 * goal, as much as fits (the tooltip has it whole, and when the run started).
 */
export function runRow(summary: Pick<RunListEntry, 'goal' | 'runId' | 'merged' | 'total'>, phase: RunPhase): { label: string; description: string } {
  return { label: `${phaseWords(phase)} · ${summary.merged}/${summary.total}`, description: plainText(goalHeadline(summary.goal) || summary.runId, 120) };
}

/**
 * A run view's tab title: a short goal and the end of the run id (`20261129-071502-a1b2` → `a1b2`),
 * so two runs of one goal have tabs that tell them apart; the header inside names the run in full.
 */
export function runViewTitle(goal: string | undefined, runId: string): string {
  const tag = /^\d{8}-\d{6}-([0-9a-f]+)$/.exec(runId)?.[1] ?? plainText(runId, 24);
  return `${plainText(goalHeadline(goal ?? '') || 'Taskloom run', 32)} · ${tag}`;
}

/** When a run was started, short enough for a row: "17:02" today, "Nov 30, 17:02" before. */
export function runWhen(iso: string, now = new Date()): string {
  const at = new Date(iso);
  const time = at.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });
  return at.toDateString() === now.toDateString() ? time : `${at.toLocaleDateString('en-US', { month: 'short', day: 'numeric' })}, ${time}`;
}

export function formatCost(usd: number): string {
  if (usd === 0) return '$0';
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

export function formatTokens(usage: TokenUsage): string {
  const n = totalTokens(usage);
  return n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)}M tok` : n >= 1000 ? `${(n / 1000).toFixed(1)}k tok` : `${n} tok`;
}

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m ${s % 60}s` : `${Math.floor(m / 60)}h ${m % 60}m`;
}

/** "attempt 2 · $0.12 · 1m 20s": the task row's description; the time is the task's (domain/taskTimings.ts), without its waits. */
export function taskDescription(task: TaskView, timings: TaskTimings, run: TaskRunContext): string {
  const parts = [taskStateWords(task.state, run)];
  if (task.overlapWarnings.length) parts.push(`⚠ overlaps ${task.overlapWarnings.map((w) => w.otherTaskId).join(', ')}`);
  if (task.attempt > 0) parts.push(`attempt ${task.attempt}`);
  if (task.usage.costUsd > 0) parts.push(formatCost(task.usage.costUsd));
  if (task.startedAt) parts.push(formatDuration(timings.totalMs));
  return parts.join(' · ');
}

/** The task's agent call under way, while an engine drives the run: the one whose newest line its row shows. */
export function openTranscript(task: Pick<TaskView, 'transcripts'>, driven: boolean): TranscriptRecord | undefined {
  const record = task.transcripts.at(-1);
  return driven && record && record.ended === undefined ? record : undefined;
}

/** A transcript line in a label: its text, and how often it came in a row. */
export const transcriptLineWords = (line: TranscriptLine, max = 300): string =>
  `${plainText(line.text, max)}${line.n && line.n > 1 ? ` ×${line.n}` : ''}`;

/** Agent text made safe for a one-line label: no terminal escapes or control characters, bounded length. */
export const plainText = (text: string, max = 300): string => displayLine(text, max);
