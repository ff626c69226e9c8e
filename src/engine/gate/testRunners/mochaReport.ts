import * as z from 'zod';
import type { CheckoutPaths } from './checkoutPaths';
import { parseJsonAs, ReportTally, testRef } from './reportFiles';
import type { TestReport } from './types';

/**
 * A mocha reporter (a module mocha loads by path) that is two: mocha's own spec reporter on the
 * console, so the output stays what a person and the actor read, and each result as JSON into
 * `output`, for the gate. mocha takes one reporter, and its JSON reporter prints nothing else.
 * mocha is found from its own command's module, so the reporter needs nothing installed beside it.
 * A failed hook is named by its suite and its title without the test it ran for (`"before all"
 * hook`), the same in every run.
 */
export function mochaReporterSource(output: string): string {
  return `// Written by Taskloom: mocha's spec output on the console, and each result as JSON for its gate.
'use strict';
const { createRequire } = require('node:module');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const mocha = createRequire(require.main ? require.main.filename : join(process.cwd(), 'index.js'))('mocha');
const titlesOf = (runnable) => (typeof runnable.titlePath === 'function' ? runnable.titlePath() : [runnable.fullTitle()]);

module.exports = function TaskloomReporter(runner, options) {
  new mocha.reporters.Spec(runner, options);
  const result = { passed: 0, skipped: 0, failed: [] };
  runner.on('pass', () => { result.passed++; });
  runner.on('pending', () => { result.skipped++; });
  runner.on('fail', (runnable) => {
    const hook = runnable.type === 'hook' && runnable.parent;
    const titles = hook ? [...titlesOf(runnable.parent), runnable.originalTitle || runnable.title] : titlesOf(runnable);
    result.failed.push({ titles, file: runnable.file || null });
  });
  runner.once('end', () => writeFileSync(${JSON.stringify(output)}, JSON.stringify(result)));
};
`;
}

const report = z.object({
  passed: z.number().int().min(0),
  skipped: z.number().int().min(0),
  failed: z.array(z.object({ titles: z.array(z.string()), file: z.string().nullable() })),
});

export function readMochaReport(text: string, paths: CheckoutPaths): TestReport | undefined {
  const parsed = parseJsonAs(report, text);
  if (!parsed) return undefined;
  const tally = new ReportTally();
  tally.passed = parsed.passed;
  tally.skipped = parsed.skipped;
  for (const failure of parsed.failed) {
    const titles = failure.titles.filter((title) => title !== '');
    tally.fail(testRef(failure.file === null ? undefined : paths.fromRunner(failure.file), titles));
  }
  return tally.ranAny ? tally.report('mocha') : undefined;
}

/** A hook's own title, the last of its titles: its tests are rerun by the titles of its suite. */
export const isHookTitle = (title: string): boolean => /^"(before|after) (all|each)" hook/.test(title);
