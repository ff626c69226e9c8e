// What each card of a task's candidates says, side by side in the run view: who built it, its
// gate, what it changed, what it cost, whether it is the pick (and why), and whether a person
// may choose it now (and, when not, why). Pure, so the tests pin it; candidatesView.ts draws it.
import { candidateChoiceOpen, type CandidatePick, type CandidateView } from '../../engine/domain/candidates';
import type { TaskView } from '../../engine/domain/runState';
import { TASK_STATE_WORDS } from '../../engine/domain/stateWords';
import { formatUsd } from './format';

export interface CandidateCard {
  candidate: number;
  /** "claude (sonnet)": the agent and model that built it. */
  builtBy: string;
  gate: 'passed' | 'failed' | 'running' | 'broken';
  /** "gate passed", "gate failed: `npm test` exited 1", "failed before its gate: …", "building…". */
  gateLine: string;
  filesChanged: string[];
  cost: string;
  branch: string;
  /** Its diff can be opened: it committed work. */
  hasWork: boolean;
  /** Set on the pick: who picked it and their reasons. */
  pick?: { by: string; reasons: string };
  /** For the others with work: they stay on their branches until the run is discarded. */
  reachable: boolean;
  /** Undefined: "Choose this one" is open; else why it is not. */
  chooseRefusal?: string;
  /** The pick waits for a person (`candidates.confirmPick`): its button goes on with it. */
  goOn?: true;
}

const PICKER: Record<CandidatePick['by'], string> = {
  critic: 'the critic',
  gate: 'the gate',
  person: 'you',
};

/** The cards of `task`'s candidates, in their order; empty when it ran as one try. */
export function candidateCards(task: TaskView): CandidateCard[] {
  const view = task.candidates;
  if (!view) return [];
  const closed = candidateChoiceRefusal(task);
  const held = pickHeld(task);
  return view.entries.map((c): CandidateCard => {
    const picked = view.picked?.candidate === c.candidate ? view.picked : undefined;
    const hasWork = c.commit !== undefined;
    return {
      candidate: c.candidate,
      builtBy: c.model ? `${c.agent} (${c.model})` : c.agent,
      gate: c.failure ? 'broken' : c.passed === undefined ? 'running' : c.passed ? 'passed' : 'failed',
      gateLine: gateLine(c),
      filesChanged: c.filesChanged,
      cost: formatUsd(c.usage.costUsd),
      branch: c.branch,
      hasWork,
      ...(picked ? { pick: { by: PICKER[picked.by], reasons: picked.reasons } } : {}),
      ...(picked && held ? { goOn: true as const } : {}),
      reachable: hasWork && !picked,
      ...(!hasWork ? { chooseRefusal: 'It has no work to take: its actor changed nothing or failed.' } : closed ? { chooseRefusal: closed } : {}),
    };
  });
}

function gateLine(c: CandidateView): string {
  if (c.failure) return `failed before its gate: ${c.failure}`;
  if (c.passed === undefined) return 'building…';
  if (c.passed) return 'gate passed';
  const failing = c.commands.filter((r) => r.exitCode !== 0 && !r.advisory).map((r) => `\`${r.command}\` ${r.timedOut ? 'timed out' : `exited ${r.exitCode}`}`);
  return failing.length ? `gate failed: ${failing.join(', ')}` : c.commit ? 'gate failed' : 'gate failed: no change to gate';
}

/**
 * The pick waits for a person to go on with it or choose another (run/candidates.ts holds it): the
 * task needs them and the pick, not theirs, is not yet in its worktree. Read from the projection,
 * not the transitions, which a first page of the run view leaves out.
 */
export const pickHeld = (task: TaskView): boolean =>
  task.state === 'NEEDS_HUMAN' && task.candidates?.picked !== undefined && task.candidates.picked.by !== 'person' && !task.candidates.settled;

/** Why no candidate of `task` may be chosen now (the task does not wait for a person); undefined while one may. */
export function candidateChoiceRefusal(task: TaskView): string | undefined {
  if (candidateChoiceOpen(task)) return undefined;
  if (task.queueProblem) return 'The merge queue sent the task back: resolve or retry it first.';
  if (task.state === 'MERGED') return 'The task merged: its work is on the integration branch.';
  if (task.state === 'SKIPPED') return 'The task was skipped: retry it to choose.';
  return `The task is ${TASK_STATE_WORDS[task.state]}: choose once it waits for you (stop it first to choose now).`;
}
