import { closeSync, constants, fstatSync, openSync, readSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type * as z from 'zod';
import { checkoutPaths, type CheckoutPaths } from './checkoutPaths';
import type { RecognisedRunner, TestRef, TestReport, TestRunnerName } from './types';

/** A report is written by code an agent controls: a bigger one is not read at all (the gate then judges by exit code). */
export const REPORT_READ_CAP_BYTES = 32 * 1024 * 1024;
/** Failed tests listed in a report at most; the count keeps them all. */
export const FAILED_LIST_CAP = 500;

/** A report file's text; undefined when it is missing, not a plain file (a symlink is not followed), or over the cap. */
export function readReportFile(path: string, capBytes = REPORT_READ_CAP_BYTES): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    const buffer = Buffer.alloc(capBytes + 1);
    let length = 0;
    for (let read = 1; read > 0 && length <= capBytes; length += read) read = readSync(fd, buffer, length, buffer.length - length, null);
    return length > capBytes ? undefined : buffer.toString('utf8', 0, length);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * The `readReport` of a runner whose report is `reportFile` in the report folder: its text read by
 * `parse`, files named from the top of the checkout it is given; undefined when there is no
 * readable file.
 */
export function reportFileReader(reportFile: string, parse: (text: string, paths: CheckoutPaths) => TestReport | undefined): RecognisedRunner['readReport'] {
  return (reportDir, _output, cwd) => {
    const text = readReportFile(join(reportDir, reportFile));
    return text === undefined ? undefined : parse(text, checkoutPaths(cwd));
  };
}

/** `text` as JSON of `schema`'s shape; undefined when it is not JSON or not that shape. */
export function parseJsonAs<Schema extends z.ZodType>(schema: Schema, text: string): z.output<Schema> | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** A report left by an earlier run must never be read as this run's. */
export function clearReport(path: string): void {
  rmSync(path, { force: true });
}

/** Titles joined as the full name of a test, and its id: the file and that name. */
export function testRef(file: string | undefined, titles: readonly string[]): TestRef {
  const name = titles.join(' › ');
  return file === undefined ? { id: name, name } : { id: `${file}::${name}`, name, file };
}

/** A file (or package) that failed before any of its tests ran, or after they did. */
export const fileRef = (file: string): TestRef => ({ id: file, name: file, file });

/** Counts a run's tests as a report reads them. */
export class ReportTally {
  passed = 0;
  skipped = 0;
  private readonly failed: TestRef[] = [];
  private readonly failedIds = new Set<string>();

  fail(ref: TestRef): void {
    if (this.failedIds.has(ref.id)) return;
    this.failedIds.add(ref.id);
    if (this.failed.length < FAILED_LIST_CAP) this.failed.push(ref);
  }

  get ranAny(): boolean {
    return this.passed + this.skipped + this.failedIds.size > 0;
  }

  report(runner: TestRunnerName): TestReport {
    return { runner, passed: this.passed, skipped: this.skipped, failed: this.failed, failedCount: this.failedIds.size };
  }
}
