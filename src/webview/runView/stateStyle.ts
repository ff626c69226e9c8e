// How each task state, run status and decision kind looks. Colours live in runView.css as
// classes over --vscode-* variables, so every theme (high contrast included) picks its own.
import type { Decision, DecisionKind } from '../../engine/domain/runState';
import type { RunPhase } from '../../engine/domain/runPhase';
import { TASK_STATE_WORDS } from '../../engine/domain/stateWords';
import type { TaskState } from '../../engine/domain/taskStates';

/** Colour families; each is a CSS class `tone-<name>` that sets `--tone` from the theme. */
export type Tone = 'plain' | 'muted' | 'blue' | 'purple' | 'orange' | 'green' | 'yellow' | 'red';

interface StateLook {
  tone: Tone;
  label: string;
  icon: string;
}

export const TASK_STATE_LOOK: Record<TaskState, StateLook> = {
  PENDING: { tone: 'muted', label: TASK_STATE_WORDS.PENDING, icon: 'circle-outline' },
  BUILDING: { tone: 'blue', label: TASK_STATE_WORDS.BUILDING, icon: 'tools' },
  GATING: { tone: 'purple', label: TASK_STATE_WORDS.GATING, icon: 'beaker' },
  MECHANICAL_FAILED: { tone: 'orange', label: TASK_STATE_WORDS.MECHANICAL_FAILED, icon: 'error' },
  CRITIC_REVIEWING: { tone: 'purple', label: TASK_STATE_WORDS.CRITIC_REVIEWING, icon: 'comment-discussion' },
  CHANGES_REQUIRED: { tone: 'orange', label: TASK_STATE_WORDS.CHANGES_REQUIRED, icon: 'request-changes' },
  GREEN: { tone: 'green', label: TASK_STATE_WORDS.GREEN, icon: 'pass' },
  UNVERIFIED_BY_CRITIC: { tone: 'yellow', label: TASK_STATE_WORDS.UNVERIFIED_BY_CRITIC, icon: 'unverified' },
  MERGING: { tone: 'blue', label: TASK_STATE_WORDS.MERGING, icon: 'git-merge' },
  MERGED: { tone: 'green', label: TASK_STATE_WORDS.MERGED, icon: 'pass-filled' },
  MERGE_CONFLICT: { tone: 'red', label: TASK_STATE_WORDS.MERGE_CONFLICT, icon: 'git-compare' },
  RESOLVING: { tone: 'purple', label: TASK_STATE_WORDS.RESOLVING, icon: 'git-compare' },
  INTEGRATION_FAILED: { tone: 'orange', label: TASK_STATE_WORDS.INTEGRATION_FAILED, icon: 'error' },
  HUMAN_RESOLVING: { tone: 'red', label: TASK_STATE_WORDS.HUMAN_RESOLVING, icon: 'person' },
  NEEDS_HUMAN: { tone: 'red', label: TASK_STATE_WORDS.NEEDS_HUMAN, icon: 'report' },
  SKIPPED: { tone: 'muted', label: TASK_STATE_WORDS.SKIPPED, icon: 'remove' },
  CANCELLED: { tone: 'muted', label: TASK_STATE_WORDS.CANCELLED, icon: 'circle-slash' },
};

/** One legend entry per colour, naming the states that share it. */
export const TONE_LEGEND: ReadonlyArray<{ tone: Tone; label: string }> = [
  { tone: 'muted', label: 'pending, skipped, cancelled' },
  { tone: 'blue', label: 'building, merging' },
  { tone: 'purple', label: 'gating, reviewing, resolving' },
  { tone: 'orange', label: 'gate failed, changes required' },
  { tone: 'green', label: 'approved, merged' },
  { tone: 'yellow', label: 'unreviewed' },
  { tone: 'red', label: 'needs you, merge conflict' },
];

/** The colour of a run's phase (its words are the domain's, RUN_PHASE_WORDS): a plan to approve and a stopped run both wait for you. */
export const RUN_PHASE_TONE: Record<RunPhase, Tone> = {
  planning: 'blue',
  awaitingApproval: 'yellow',
  running: 'blue',
  paused: 'yellow',
  stopped: 'yellow',
  watching: 'green',
  integrating: 'purple',
  completed: 'green',
  needs_human: 'red',
  cancelled: 'muted',
  failed: 'red',
};

export const DECISION_ICON: Record<DecisionKind, string> = {
  plan: 'checklist',
  gate: 'beaker',
  critic: 'comment-discussion',
  human: 'person',
  merge: 'git-merge',
  conflict: 'warning',
  integration: 'git-pull-request',
  queue: 'list-ordered',
  overlap: 'layers',
  pull_request: 'git-pull-request-create',
  run: 'run-all',
};

/** The colour of a ledger entry's icon: passed or failed, approved or not, read from its facts. */
export function decisionTone(d: Pick<Decision, 'kind' | 'fact'>): Tone {
  const f = d.fact;
  switch (f.type) {
    case 'gate_result':
    case 'pr_fix_gated':
      return f.passed ? 'green' : 'red';
    case 'plan_reviewed':
      return f.blocking ? 'orange' : 'green';
    case 'critic_verdict':
    case 'pr_fix_reviewed':
      return f.verdict.decision === 'green' ? 'green' : 'orange';
    case 'run_finished':
      return f.status === 'completed' ? 'green' : f.status === 'needs_human' || f.status === 'failed' ? 'red' : f.status === 'paused' ? 'yellow' : 'plain';
    case 'run_paused':
      return 'yellow';
    default:
      return KIND_TONE[d.kind] ?? 'plain';
  }
}

/** The kinds whose every entry has one colour. */
const KIND_TONE: Partial<Record<DecisionKind, Tone>> = { conflict: 'red', merge: 'green', overlap: 'yellow' };

export const toneClass = (tone: Tone): string => `tone-${tone}`;
