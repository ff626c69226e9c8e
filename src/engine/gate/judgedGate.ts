import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GateCommandResult } from '../domain/events';
import { againstBaseline, type GateTestOutcome, type TestRef } from '../domain/gateTests';
import { chooseSelection, type ChosenSelection } from './gateSelection';
import { gateStop, runGateCommand, type GateResult, type RanGateCommand, type RunGateOptions } from './runGate';
import { recogniseRunner, type RecognisedRunner, type TestReport, type TestSelection } from './testRunners';

/** How the gate judges its commands besides their exit codes. */
export interface GateJudging {
  /** The run's base gated (its baseline_result), and the failing base commands the user made advisory. Absent: no baseline. */
  baseline?: { commands: readonly GateCommandResult[]; advisory: readonly string[] };
  /** A task gate with affected-only tests: what its change touched (repo-relative). Absent: every test runs. */
  changed?: readonly string[];
  /** Reruns this gate may spend on newly failing tests, to tell a flaky test from a broken one. */
  flakyReruns: number;
  /** The baseline itself: every command runs, whatever the one before did. */
  keepGoing?: boolean;
}

/**
 * The gate, judged: each command whose test runner Taskloom recognises runs with its runner's
 * machine-readable report, and fails only for tests that fail here and not on the base (after a
 * rerun alone, which tells a flaky test from a broken one); a command no runner explains fails by
 * its exit code, unless it fails on the base too and the user made it advisory for this run.
 */
export async function runJudgedGate(opts: RunGateOptions & { judging: GateJudging }): Promise<GateResult> {
  const deadline = Date.now() + opts.timeoutMs;
  const commands: GateCommandResult[] = [];
  const budget = { reruns: opts.judging.flakyReruns };
  let passed = true;
  for (const command of opts.commands) {
    const timeLeft = () => ({ ...opts, timeoutMs: Math.max(0, deadline - Date.now()) });
    const judged = await judgeCommand(command, timeLeft, opts.judging, budget);
    commands.push(judged.result);
    const stop = judged.ran ? gateStop(judged.ran, !judged.passed) : undefined;
    if (stop && (stop.cancelled || stop.stuck || stop.sandboxFailure || !opts.judging.keepGoing)) return { ...stop, commands };
    passed &&= judged.passed;
  }
  return { passed, stuck: false, cancelled: false, commands };
}

interface JudgedCommand {
  result: GateCommandResult;
  /** Absent when nothing ran (no test could be affected). */
  ran?: RanGateCommand;
  passed: boolean;
}

async function judgeCommand(command: string, options: () => RunGateOptions, judging: GateJudging, budget: { reruns: number }): Promise<JudgedCommand> {
  const { cwd } = options();
  const runner = recogniseRunner(command, cwd);
  const chosen: ChosenSelection = judging.changed ? await chooseSelection(command, runner, cwd, judging.changed) : { run: 'all' };
  const selection = chosen.selection ? { selection: chosen.selection } : {};
  if (chosen.run === 'none') return { result: { command, exitCode: 0, timedOut: false, durationMs: 0, output: '', ...selection }, passed: true };
  const base = judging.baseline?.commands.find((c) => c.command === command);
  const advisory = base !== undefined && base.exitCode !== 0 && judging.baseline!.advisory.includes(command);
  if (!runner || chosen.run === 'command') {
    const ran = await runGateCommand(command, options(), chosen.run === 'command' ? { command: chosen.command } : undefined);
    return byExitCode(ran, selection, advisory);
  }
  const tests: TestSelection = chosen.run === 'runner' ? chosen.tests : { kind: 'all' };
  const { ran, report } = await withReport(runner, cwd, tests, (variant) => runGateCommand(command, options(), variant));
  if (ran.process.exitCode === 0) return { result: { ...ran.result, ...selection, ...(report ? { tests: outcome(runner, report, [], [], []) } : {}) }, ran, passed: true };
  if (!report || report.failed.length === 0) return byExitCode(ran, selection, advisory);
  const baseFailures = new Set(base?.tests?.failed.map((t) => t.id) ?? []);
  const { newFailures, alreadyFailing } = againstBaseline(report.failed, baseFailures);
  const flaky = newFailures.length && budget.reruns > 0 && !stopped(ran) ? await rerunAlone(runner, newFailures, options, budget) : [];
  const broken = newFailures.filter((t) => !flaky.some((f) => f.id === t.id));
  const tested = outcome(runner, report, broken, alreadyFailing, flaky);
  return { result: { ...ran.result, ...selection, tests: tested }, ran, passed: broken.length === 0 && !stopped(ran) };
}

/** A command judged as a whole: its exit code, or advisory when it fails on the base too and the user said so. */
function byExitCode(ran: RanGateCommand, selection: object, advisory: boolean): JudgedCommand {
  const failed = ran.process.exitCode !== 0;
  const excused = failed && advisory && !stopped(ran);
  return { result: { ...ran.result, ...selection, ...(excused ? { advisory: true as const } : {}) }, ran, passed: !failed || excused };
}

/** Stopped, stuck or not started: nothing a test report or a choice can excuse. */
const stopped = (ran: RanGateCommand): boolean => ran.process.cancelled || ran.process.idleTimedOut || ran.process.timedOut || ran.process.sandboxFailure !== undefined;

/** Runs the runner's variant for `tests` with its report in a folder of its own outside the checkout (the gate leaves nothing in the work). */
async function withReport(runner: RecognisedRunner, cwd: string, tests: TestSelection, run: (variant: { command: string; env: Record<string, string>; writable: string[] }) => Promise<RanGateCommand>): Promise<{ ran: RanGateCommand; report: TestReport | undefined }> {
  const reportDir = mkdtempSync(join(tmpdir(), 'taskloom-report-'));
  try {
    const variant = runner.commandFor(tests, reportDir);
    const ran = await run({ ...variant, writable: [reportDir] });
    return { ran, report: runner.readReport(reportDir, ran.process.output, cwd) };
  } finally {
    rmSync(reportDir, { recursive: true, force: true });
  }
}

/** The newly failing tests run again, alone: those that pass now are flaky, not broken. */
async function rerunAlone(runner: RecognisedRunner, failing: TestRef[], options: () => RunGateOptions, budget: { reruns: number }): Promise<TestRef[]> {
  budget.reruns -= 1;
  const { ran, report } = await withReport(runner, options().cwd, { kind: 'tests', tests: failing }, (variant) => runGateCommand(`${runner.command} (rerun)`, options(), variant));
  if (stopped(ran) || !report) return [];
  const stillFailing = new Set(report.failed.map((t) => t.id));
  // A rerun that ran none of them (a selection the runner could not make) proves nothing.
  if (report.passed === 0) return [];
  return failing.filter((t) => !stillFailing.has(t.id));
}

function outcome(runner: RecognisedRunner, report: TestReport, newFailures: TestRef[], alreadyFailing: TestRef[], flaky: TestRef[]): GateTestOutcome {
  return { runner: runner.runner, passed: report.passed, skipped: report.skipped, failed: report.failed, newFailures, alreadyFailing, flaky };
}
