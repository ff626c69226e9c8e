import type { GateJudgement } from '../domain/decisionFact';
import type { BaselineChoice, GateCommandResult } from '../domain/events';
import { undecidedBaselineFailures } from '../domain/gateProjection';
import type { BaselineView, RunState } from '../domain/runState';
import { counted } from './counted';
import { displayLine } from './terminalText';

// How the gate's judgement reads where the user looks: the CLI's progress and summary, `runs`,
// the run view. Test names come from reports a test run wrote (code an agent controls): each is
// one clipped line without terminal controls.

const code = (command: string): string => `\`${displayLine(command, 120)}\``;

/** "a, b and c": every item, for a few commands. */
function joined(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** "a, b, c and 4 more": the first names, counted past them. */
export function listedNames(names: readonly string[], shown = 3): string {
  const first = names.slice(0, shown).map((n) => displayLine(n, 120));
  const more = names.length - first.length;
  return more > 0 ? `${first.join(', ')} and ${more} more` : first.join(', ');
}

/**
 * Why a gate was not run again: the attempt's files are the very ones it failed on. Usually the
 * actor changed nothing; after a restart, the attempt made again produced the same files.
 */
export function unchangedTreeWords(attempt: number, failedAttempt: number, command?: string): string {
  const gate = command ? code(command) : 'the gate';
  return failedAttempt < attempt
    ? `attempt ${attempt} changed no file since ${gate} failed on attempt ${failedAttempt}`
    : `attempt ${attempt}, made again after the run stopped, has the same files ${gate} failed on`;
}

/** How a person names the run's base: its branch, or its commit when the run started on a detached HEAD. */
export const baseName = (state: Pick<RunState, 'baseRef' | 'baseCommit'>): string =>
  state.baseRef && state.baseRef !== 'HEAD' ? state.baseRef : state.baseCommit.slice(0, 10);

/**
 * The choice a run waits for, the same in the pause's reason, the CLI, a notification, a refusal
 * and the run view: the three ways on, each with what it means.
 */
export function baselineChoiceWords(commands: readonly string[], base = "the run's base"): string {
  const one = commands.length === 1;
  const [it, its] = one ? ['it', 'its'] : ['them', 'their'];
  return (
    `${joined(commands.map(code))} ${one ? 'fails' : 'fail'} on ${base} before any task changed anything, and no test runner says which tests: ` +
    `treat ${it} as advisory for this run (${its} failures are shown and fail no gate), ` +
    `keep ${it} as required (a check of work still to be done: the tasks must make ${it} pass), or cancel the run`
  );
}

/** A choice made about base failures, as the progress and the ledger's readers see it: who made it, and what the commands are now. */
export function baselineChoiceMadeWords(commands: readonly string[], choice: BaselineChoice, bySetting = false): string {
  const who = bySetting ? 'set ahead by taskloom.gate.onBaseFailure' : 'your choice';
  const checks = commands.length === 1 ? 'a check of work still to be done, judged by its exit code' : 'checks of work still to be done, judged by their exit codes';
  const what = choice === 'advisory' ? `advisory for this run (${who}): shown, failing no gate` : `required (${who}): ${checks}`;
  return `${commands.map(code).join(', ')} ${what}`;
}

/** One failing base command: its tests already failing, or whether it waits for the user's choice. */
function baselineCommandLine(c: GateCommandResult, baseline: Pick<BaselineView, 'advisory' | 'required'>, base: string): string {
  if (c.tests) {
    const names = c.tests.failed.map((t) => t.name);
    return names.length ? `${code(c.command)}: already failing on ${base}: ${listedNames(names)} — not any task's to fix` : `${code(c.command)} fails on ${base}; its runner named no failing test`;
  }
  if (baseline.advisory.includes(c.command)) return `${code(c.command)} fails on ${base} too: advisory for this run (your choice)`;
  if (baseline.required.includes(c.command)) return `${code(c.command)} fails on ${base}: kept as required, a check of work still to be done that the tasks must make pass`;
  return `${code(c.command)} fails on ${base} and no runner said which tests: the run waits for your choice`;
}

/** The baseline: what it found in a line, then a line for each command that fails on the base. */
export function baselineWords(baseline: BaselineView, base: string): { summary: string; lines: string[] } {
  const failing = baseline.commands.filter((c) => c.exitCode !== 0);
  const cached = baseline.cached ? ' (cached: this base was gated before)' : '';
  if (failing.length === 0) return { summary: `the gate on ${base} passes${cached}`, lines: [] };
  return {
    summary: `the gate on ${base} fails ${joined(failing.map((c) => code(c.command)))}${cached}`,
    lines: failing.map((c) => baselineCommandLine(c, baseline, base)),
  };
}

export const cachedFromWords = (from: { taskId: string | null; attempt: number }): string =>
  `cached (same tree as ${from.taskId === null ? `integration batch ${from.attempt}` : `"${displayLine(from.taskId, 60)}" attempt ${from.attempt}`})`;

/** One thing a gate's result rests on besides exit codes: a short tag, and the part of a sentence that says it whole. */
interface JudgementPart {
  tag: string;
  part: string;
}

function judgement(j: GateJudgement, base: string, whose: 'task' | 'integration'): JudgementPart[] {
  const parts: JudgementPart[] = [];
  if (j.alreadyFailing?.length) {
    const not = whose === 'task' ? "not this task's" : "not the run's";
    parts.push({ tag: `${counted(j.alreadyFailing.length, 'test')} already failing on ${base}`, part: `already failing on ${base}: ${listedNames(j.alreadyFailing)} (${not})` });
  }
  if (j.flaky?.length) parts.push({ tag: `${j.flaky.length} flaky`, part: `flaky: ${listedNames(j.flaky)}` });
  if (j.advisory?.length) parts.push({ tag: 'advisory', part: `advisory: ${joined(j.advisory.map(code))} (fails on ${base} too)` });
  for (const selection of j.selection ?? []) parts.push({ tag: 'affected tests only', part: `ran only what the change can affect — ${displayLine(selection, 200)}` });
  if (j.cachedFrom) parts.push({ tag: 'cached', part: cachedFromWords(j.cachedFrom) });
  return parts;
}

/**
 * What a gate's result rests on besides exit codes, a short part each: "already failing on main:
 * x (not this task's)", "flaky: y", "advisory: `lint`", the selection, "cached (same tree as …)".
 * `whose`: the change it judged — a task's, or the integration's.
 */
export const judgementParts = (j: GateJudgement, base: string, whose: 'task' | 'integration' = 'task'): string[] => judgement(j, base, whose).map((p) => p.part);

/** The same as short tags for a ledger entry ("2 tests already failing on main", "cached"), each with its whole part as title. */
export const judgementTags = (j: GateJudgement, base: string, whose: 'task' | 'integration' = 'task'): Array<{ label: string; title: string }> =>
  judgement(j, base, whose).map((p) => ({ label: p.tag, title: p.part }));

/** Tests the integration gate caught that narrower task gates had not run, by command. */
export function missedRegressionLines(state: Pick<RunState, 'decisions'>): string[] {
  return state.decisions.flatMap((d) =>
    d.fact.type === 'missed_regression' ? [`${code(d.fact.command)}: ${listedNames(d.fact.tests)} (after ${d.fact.taskIds.join(', ') || 'the batch'})`] : [],
  );
}

/** Every flaky test the run's gates recorded, once each. */
export function flakyTests(state: Pick<RunState, 'decisions'>): string[] {
  return [...new Set(state.decisions.flatMap((d) => (d.fact.type === 'gate_result' ? (d.fact.flaky ?? []) : [])))];
}

/** How many gates were served from an earlier result on the same tree. */
export const cachedGates = (state: Pick<RunState, 'decisions'>): number =>
  state.decisions.filter((d) => d.fact.type === 'gate_result' && d.fact.cachedFrom !== undefined).length;

/** The run's gate in a few words, for a list of runs: "2 already failing on main, 1 missed regression"; undefined when there is nothing to say. */
export function runGateBrief(state: RunState): string | undefined {
  const base = baseName(state);
  const parts: string[] = [];
  const baseline = state.baseline;
  if (baseline) {
    const already = baseline.commands.reduce((n, c) => n + (c.tests?.failed.length ?? 0), 0);
    if (already) parts.push(`${already} already failing on ${base}`);
    if (undecidedBaselineFailures(state).length) parts.push('base fails: waits for your choice');
    else {
      if (baseline.advisory.length) parts.push(`${counted(baseline.advisory.length, 'command')} advisory`);
      if (baseline.required.length) parts.push(`${counted(baseline.required.length, 'command')} failing on ${base} kept as required`);
    }
  }
  if (state.missedRegressions) parts.push(counted(state.missedRegressions, 'missed regression'));
  return parts.length ? parts.join(', ') : undefined;
}

