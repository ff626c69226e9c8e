import type { EventOf } from './events';
import { needsBaselineChoice } from './gateTests';
import { decide } from './decisionLedger';
import type { RunState } from './runState';

type GateHandlers = {
  [T in 'baseline_result' | 'baseline_choice' | 'missed_regression']: (state: RunState, e: EventOf<T>) => void;
};

/** The baseline (the gate on the run's base), the user's choice for its failures, and what narrower task gates missed. */
export const GATE_HANDLERS: GateHandlers = {
  baseline_result(state, e) {
    const advisory = state.baseline?.advisory ?? [];
    const required = state.baseline?.required ?? [];
    state.baseline = { commit: e.commit, tree: e.tree, key: e.key, at: e.at, commands: e.commands, advisory, required, ...(e.cached ? { cached: true } : {}) };
    const failing = e.commands
      .filter((c) => c.exitCode !== 0)
      .map((c) => ({ command: c.command, ...(c.tests ? { tests: c.tests.failed.map((t) => t.name) } : {}) }));
    decide(state, e, 'run', { type: 'baseline_result', commit: e.commit, ...(e.cached ? { cached: e.cached } : {}), failing, commands: e.commands.length });
  },
  baseline_choice(state, e) {
    if (state.baseline) state.baseline[e.choice] = [...new Set([...state.baseline[e.choice], ...e.commands])];
    decide(state, e, 'run', { type: 'baseline_choice', commands: e.commands, choice: e.choice, ...(e.bySetting ? { bySetting: e.bySetting } : {}) });
  },
  missed_regression(state, e) {
    state.missedRegressions += e.tests.length;
    decide(state, e, 'integration', { type: 'missed_regression', command: e.command, taskIds: e.taskIds, tests: e.tests.map((t) => t.name) });
  },
};

/** The base's failing commands that no runner explained and the user has not chosen about yet: the run waits for that choice. */
export function undecidedBaselineFailures(state: Pick<RunState, 'baseline'>): string[] {
  const baseline = state.baseline;
  if (!baseline) return [];
  return baseline.commands.filter((c) => needsBaselineChoice(c) && !baseline.advisory.includes(c.command) && !baseline.required.includes(c.command)).map((c) => c.command);
}
