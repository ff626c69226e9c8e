import { existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { CheckoutPaths } from './checkoutPaths';
import { junitTestCases } from './junitXml';
import { fileRef, ReportTally } from './reportFiles';
import type { TestRef, TestReport } from './types';

/**
 * pytest's JUnit report (written as `xunit1`, whose test cases carry their `file`) read back into
 * node ids: `tests/test_x.py::TestClass::test_y[param]`. A file that did not import is a test
 * case without a class (a collection error): the file itself failed.
 */
export function readPytestJunit(xml: string, paths: CheckoutPaths): TestReport | undefined {
  const tally = new ReportTally();
  const roots = new Map<string, string | undefined>();
  for (const testCase of junitTestCases(xml)) {
    if (testCase.outcome === 'passed') tally.passed++;
    else if (testCase.outcome === 'skipped') tally.skipped++;
    else {
      const { file, classname = '', name = '' } = testCase.attributes;
      if (!roots.has(file ?? '')) roots.set(file ?? '', file === undefined ? undefined : repositoryFile(file, paths));
      tally.fail(pytestRef(roots.get(file ?? ''), file, classname, name));
    }
  }
  return tally.ranAny ? tally.report('pytest') : undefined;
}

function pytestRef(repoFile: string | undefined, file: string | undefined, classname: string, name: string): TestRef {
  if (repoFile !== undefined && classname === '') return fileRef(repoFile);
  // pytest writes the node id's module path dotted (`tests.test_x`) before its classes: what follows it are the classes.
  const module = file?.replace(/\.py$/, '').split('/').join('.');
  const classes = module !== undefined && classname.startsWith(`${module}.`) ? classname.slice(module.length + 1).split('.') : classname === module ? [] : [classname];
  const testName = [...classes, name].filter((part) => part !== '').join('::');
  return repoFile === undefined ? { id: testName, name: testName } : { id: `${repoFile}::${testName}`, name: testName, file: repoFile };
}

/**
 * pytest names a file from its rootdir: cwd, or the folder above it holding its configuration.
 * The first of those (up to the top of the repository) holding the file is taken.
 */
function repositoryFile(file: string, paths: CheckoutPaths): string | undefined {
  for (let dir = paths.cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, file))) return paths.fromRunner(file, dir);
    if (relative(paths.top, dir) === '' || dirname(dir) === dir) return paths.fromRunner(file);
  }
}
