import type { PullRequestSummary } from '../../engine/report/traceReport';
import { allowedRunActions, allowedTaskActions, phaseOf, RUN_ACTIONS, TASK_ACTIONS, type ActionableTask, type RunFacts } from '../../engine/domain/runActions';
import { RUN_PHASE_WORDS, type RunPhase } from '../../engine/domain/runPhase';
import { TASK_STATES } from '../../engine/domain/taskStates';
import type { AttentionItem } from '../state/attention';
import type { StartAgain } from '../state/resumable';

// A tree row's `contextValue` is what package.json's menus match (`viewItem =~ /…/`): every row
// with menus gets it from a builder here, in words this module also lists whole, so a test checks
// each menu against the values a row of its view can carry (test/unit/extension/contributions.test.ts).

/** The tree views and their ids, as package.json contributes them. */
export const TREE_VIEWS = { runs: 'taskloom.runs', needsYou: 'taskloom.needsYou' } as const;
export type TreeViewId = (typeof TREE_VIEWS)[keyof typeof TREE_VIEWS];

const can = (action: string) => `can-${action}`;
const START_AGAIN_WORDS = ['startAgain', 'withPlan', 'rejectedPlan'] as const;
const startAgainWords = (startAgain: StartAgain | undefined): string[] =>
  startAgain ? START_AGAIN_WORDS.filter((word) => word === 'startAgain' || startAgain[word]) : [];

/**
 * A run row: `run.<phase>[.can-<action>…][.startAgain[.withPlan][.rejectedPlan]]`: each action the
 * run allows now, by the rules the commands and the run view use too (domain/runActions.ts), and
 * how a run that cannot be resumed starts again (state/resumable.ts).
 */
export const runContextValue = (run: RunFacts, startAgain?: StartAgain): string =>
  ['run', phaseOf(run), ...allowedRunActions(run).map(can), ...startAgainWords(startAgain)].join('.');

/** A task row: `task.<STATE>[.can-<action>…]`, its decisions and looks by the same rules. */
export const taskContextValue = (task: ActionableTask): string => ['task', task.state, ...allowedTaskActions(task).map(can)].join('.');

type PullRequestState = NonNullable<PullRequestSummary['state']>;
const PULL_REQUEST_STATES = Object.keys({ open: 0, merged: 0, closed: 0 } satisfies Record<PullRequestState, 0>) as PullRequestState[];

/** A pull request row: `pullRequest.<state>`, open until the watch saw otherwise. */
export const pullRequestContextValue = (state: PullRequestState = 'open'): string => `pullRequest.${state}`;

/** A Needs You row whose run or task is not in the window (any more): its kind, which no menu matches. */
export const attentionContextValue = (kind: AttentionItem['kind']): string => kind;
const ATTENTION_KINDS = Object.keys({ task: 0, planApproval: 0, paused: 0, stopped: 0, planFailed: 0, conflict: 0 } satisfies Record<AttentionItem['kind'], 0>);

/** `<kind>.<state>` followed by any of `words`, in their order: every value of a builder's form (a few never happen together). */
function everyValue(kind: string, states: readonly string[], words: readonly string[]): string[] {
  const values: string[] = [];
  for (const state of states) {
    for (let chosen = 0; chosen < 1 << words.length; chosen++) values.push([kind, state, ...words.filter((_, i) => chosen & (1 << i))].join('.'));
  }
  return values;
}

/** Every context value a row of `view` can carry, from the builders' own words. */
export function contextValuesOf(view: TreeViewId): string[] {
  const runs = everyValue('run', Object.keys(RUN_PHASE_WORDS) as RunPhase[], [...RUN_ACTIONS.map(can), ...START_AGAIN_WORDS]);
  const tasks = everyValue('task', TASK_STATES, TASK_ACTIONS.map(can));
  return view === TREE_VIEWS.runs ? [...runs, ...tasks, ...PULL_REQUEST_STATES.map(pullRequestContextValue)] : [...runs, ...tasks, ...ATTENTION_KINDS];
}
