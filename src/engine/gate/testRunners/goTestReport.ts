import { existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import * as z from 'zod';
import type { CheckoutPaths } from './checkoutPaths';
import { fileRef, parseJsonAs, readReportFile, ReportTally, testRef } from './reportFiles';
import type { TestReport } from './types';

/** Prints what `go test` would have printed, from the Output of its -json events; run with the node running Taskloom. */
export const GO_OUTPUT_PRINTER_SOURCE = `// Written by Taskloom: what \`go test\` printed, from its -json events.
'use strict';
const { readFileSync } = require('node:fs');
let text = '';
try { text = readFileSync(process.argv[2], 'utf8'); } catch {}
for (const line of text.split('\\n')) {
  let event;
  try { event = JSON.parse(line); } catch { if (line !== '') process.stdout.write(line + '\\n'); continue; }
  if (event && typeof event.Output === 'string') process.stdout.write(event.Output);
}
`;

const goEvent = z.object({
  Action: z.string(),
  Package: z.string().optional(),
  ImportPath: z.string().optional(),
  Test: z.string().optional(),
});

/** Before go 1.24, a package that did not build is this line among the JSON, not an event. */
const PACKAGE_NOT_BUILT = /^FAIL\t(\S+) \[(build|setup) failed\]$/;

/**
 * `go test -json` events read into a report. A test fails as the deepest failing subtest (go also
 * fails its parents); a package that failed with no failing test (it did not build, TestMain or
 * init failed) is one failed test named by its folder.
 */
export function readGoTestEvents(text: string, paths: CheckoutPaths): TestReport | undefined {
  const tally = new ReportTally();
  const failedTests = new Map<string, Set<string>>();
  const failedPackages = new Set<string>();
  for (const line of text.split('\n')) {
    const notBuilt = PACKAGE_NOT_BUILT.exec(line)?.[1];
    if (notBuilt !== undefined) failedPackages.add(notBuilt);
    const event = line.startsWith('{') ? parseJsonAs(goEvent, line) : undefined;
    const pkg = event?.Package ?? event?.ImportPath;
    if (!event || pkg === undefined) continue;
    if (event.Test === undefined) {
      if (event.Action === 'fail' || event.Action === 'build-fail') failedPackages.add(pkg);
    } else if (event.Action === 'pass') tally.passed++;
    else if (event.Action === 'skip') tally.skipped++;
    else if (event.Action === 'fail') failedTests.set(pkg, (failedTests.get(pkg) ?? new Set()).add(event.Test));
  }
  const folderOf = packageFolders(paths);
  for (const pkg of failedPackages) {
    const tests = [...(failedTests.get(pkg) ?? [])];
    const deepest = tests.filter((test) => !tests.some((other) => other.startsWith(`${test}/`)));
    if (deepest.length === 0) tally.fail(fileRef(folderOf(pkg)));
    for (const test of deepest) tally.fail(testRef(folderOf(pkg), [test]));
  }
  return tally.ranAny ? tally.report('go test') : undefined;
}

/** A package's folder from the top of the repository, by the module that cwd is in; its import path when it is of another module. */
function packageFolders(paths: CheckoutPaths): (importPath: string) => string {
  const module = goModule(paths.cwd, paths.top);
  return (importPath) => {
    if (!module) return importPath;
    if (importPath === module.path) return paths.fromRunner(module.dir) ?? importPath;
    if (!importPath.startsWith(`${module.path}/`)) return importPath;
    return paths.fromRunner(join(module.dir, importPath.slice(module.path.length + 1))) ?? importPath;
  };
}

/** The module (go.mod's `module` line and its folder) holding cwd, looked for up to the top of the repository. */
export function goModule(cwd: string, top: string): { path: string; dir: string } | undefined {
  for (let dir = cwd; ; dir = dirname(dir)) {
    const goMod = join(dir, 'go.mod');
    if (existsSync(goMod)) {
      const path = readModulePath(goMod);
      return path === undefined ? undefined : { path, dir };
    }
    if (relative(top, dir) === '' || dirname(dir) === dir) return undefined;
  }
}

function readModulePath(goMod: string): string | undefined {
  const text = readReportFile(goMod, 1024 * 1024);
  return text === undefined ? undefined : /^module\s+"?([^\s"]+)"?\s*$/m.exec(text)?.[1];
}
