import { basename } from 'node:path';
import * as z from 'zod';
import type { CheckoutPaths } from './checkoutPaths';
import { fileRef, parseJsonAs, ReportTally, testRef } from './reportFiles';
import type { TestReport, TestRunnerName } from './types';

/** The JSON report jest writes with `--json`, and vitest's `json` reporter in the same shape: what the gate reads of it. */
const jestJson = z.object({
  testResults: z.array(
    z.object({
      name: z.string(),
      status: z.string(),
      message: z.string().optional(),
      assertionResults: z.array(z.object({ ancestorTitles: z.array(z.string()), title: z.string(), status: z.string() })),
    }),
  ),
});

const SKIPPED = new Set(['pending', 'skipped', 'todo', 'disabled']);

/**
 * A jest-shaped report. A test file that failed without a failing test in it (it did not load,
 * a hook outside the tests threw) is one failed test named by its file.
 */
export function readJestJson(text: string, runner: TestRunnerName, paths: CheckoutPaths): TestReport | undefined {
  const report = parseJsonAs(jestJson, text);
  if (!report) return undefined;
  const tally = new ReportTally();
  for (const suite of report.testResults) {
    const file = paths.fromRunner(suite.name);
    let failedInside = false;
    for (const test of suite.assertionResults) {
      if (test.status === 'passed') tally.passed++;
      else if (SKIPPED.has(test.status)) tally.skipped++;
      else if (test.status === 'failed') {
        failedInside = true;
        tally.fail(testRef(file, [...test.ancestorTitles, test.title]));
      }
    }
    if (suite.status === 'failed' && !failedInside) tally.fail(fileRef(file ?? basename(suite.name)));
  }
  return tally.ranAny ? tally.report(runner) : undefined;
}
