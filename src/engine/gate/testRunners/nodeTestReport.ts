import { isAbsolute } from 'node:path';
import * as z from 'zod';
import type { CheckoutPaths } from './checkoutPaths';
import { fileRef, parseJsonAs, ReportTally, testRef } from './reportFiles';
import type { TestReport } from './types';

/**
 * A node:test reporter (a module Node loads by path) writing each test's start and result as a
 * line of JSON. Node 20's JUnit reporter names no file (a testcase has only its name and
 * `classname="test"`), and a test's id needs its file; the events Node gives a reporter carry it.
 * Written into the report folder, outside the checkout.
 */
export const NODE_TEST_REPORTER_SOURCE = `// Written by Taskloom: each test's start and result as a line of JSON, for its gate to read.
export default async function* taskloomReport(source) {
  for await (const event of source) {
    if (event.type !== 'test:start' && event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const data = event.data;
    yield JSON.stringify({
      type: event.type,
      name: data.name,
      nesting: data.nesting,
      file: data.file ?? null,
      skip: data.skip !== undefined && data.skip !== false,
      todo: data.todo !== undefined && data.todo !== false,
      suite: data.details?.type === 'suite',
      failureType: data.details?.error?.failureType ?? null,
    }) + '\\n';
  }
}
`;

const event = z.object({
  type: z.enum(['test:start', 'test:pass', 'test:fail']),
  name: z.string(),
  nesting: z.number().int().min(0).max(1000),
  file: z.string().nullable(),
  skip: z.boolean(),
  todo: z.boolean(),
  suite: z.boolean(),
  failureType: z.string().nullable(),
});
type NodeTestEvent = z.infer<typeof event>;

/**
 * The events read back into a report. Node emits a test's start in the order tests are declared,
 * before its subtests', so the titles of its ancestors are the last started at each lower nesting
 * in the same file. A file whose process failed outside any test (it did not load, it exited
 * early) is a test named by its own absolute path.
 */
export function readNodeTestEvents(text: string, paths: CheckoutPaths): TestReport | undefined {
  const tally = new ReportTally();
  const started = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const parsed = parseJsonAs(event, line);
    if (!parsed) continue;
    const titles = started.get(parsed.file ?? '') ?? [];
    started.set(parsed.file ?? '', titles);
    if (parsed.type === 'test:start') {
      titles.length = parsed.nesting;
      titles[parsed.nesting] = parsed.name;
      continue;
    }
    count(tally, parsed, titles.slice(0, parsed.nesting), paths);
  }
  return tally.ranAny ? tally.report('node:test') : undefined;
}

function count(tally: ReportTally, result: NodeTestEvent, ancestors: string[], paths: CheckoutPaths): void {
  const file = result.file === null ? undefined : paths.fromRunner(result.file);
  if (result.type === 'test:fail' && file !== undefined && result.nesting === 0 && isAbsolute(result.name) && result.name === result.file) {
    tally.fail(fileRef(file));
  } else if (result.skip || result.todo) {
    if (!result.suite) tally.skipped++;
  } else if (result.type === 'test:pass') {
    if (!result.suite) tally.passed++;
  } else if (!result.suite || result.failureType !== 'subtestsFailed') {
    // A suite fails on its own only by a hook or its body throwing; one failing because a test in it failed is that test.
    tally.fail(testRef(file, [...ancestors, result.name]));
  }
}
