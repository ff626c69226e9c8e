import assert from 'node:assert/strict';
import type { RecognisedRunner, TestRunnerName } from '../../src/engine/gate/testRunners';
import { failedIds, recognised, runSelection, runShell, wholeRun, type SelectedRun } from './runnerFixture';

/** What a project's whole run reports: its runner, the failing tests' ids (sorted), and how many passed and were skipped. */
export interface WholeRunReport {
  runner: TestRunnerName;
  failed: readonly string[];
  passed: number;
  skipped: number;
}

/**
 * `command` is recognised in `dir` as `expected.runner`; it fails alone, and its whole run as the
 * gate runs it fails too and reports exactly `expected`. Returns the runner and that run for each
 * runner's own checks (what it can select, what it prints).
 */
export function assertWholeRunFails(command: string, dir: string, expected: WholeRunReport): { runner: RecognisedRunner; run: SelectedRun } {
  const runner = recognised(command, dir);
  assert.equal(runner.runner, expected.runner);
  assert.notEqual(runShell(command, dir).exitCode, 0, command);
  const run = runSelection(runner, { kind: 'all' }, dir);
  assert.notEqual(run.exitCode, 0, command);
  assert.deepEqual(failedIds(run.report), expected.failed);
  assert.deepEqual({ passed: run.report?.passed, skipped: run.report?.skipped }, { passed: expected.passed, skipped: expected.skipped });
  return { runner, run };
}

/** `command` passes alone in `dir`, and its whole run as the gate runs it passes with no failed test. */
export function assertWholeRunPasses(command: string, dir: string): void {
  assert.equal(runShell(command, dir).exitCode, 0);
  const run = wholeRun(command, dir);
  assert.equal(run.exitCode, 0);
  assert.deepEqual(failedIds(run.report), []);
}

/** The tests that failed in the whole run of `command` are rerun by name: the rerun fails with exactly `failed`. Returns it for what else it must show. */
export function assertRerunFailsAgain(command: string, dir: string, failed: readonly string[]): SelectedRun {
  const runner = recognised(command, dir);
  const failing = runSelection(runner, { kind: 'all' }, dir).report!.failed;
  const rerun = runSelection(runner, { kind: 'tests', tests: failing }, dir);
  assert.notEqual(rerun.exitCode, 0);
  assert.deepEqual(failedIds(rerun.report), failed);
  return rerun;
}

/** The tests related to `changed` run, and no others: `expected.passed` pass, exactly `expected.failed` fail, and the run passes when none does. */
export function assertRelatedRun(runner: RecognisedRunner, dir: string, changed: string[], expected: { passed: number; failed: readonly string[] }, message?: string): void {
  const run = runSelection(runner, { kind: 'related', changed }, dir);
  assert.deepEqual({ passed: run.report?.passed, failed: failedIds(run.report) }, expected, message);
  assert.equal(run.exitCode === 0, expected.failed.length === 0, `exit code ${run.exitCode}`);
}
