import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { checkoutPaths } from '../../src/engine/gate/testRunners/checkoutPaths';
import { readGoTestEvents } from '../../src/engine/gate/testRunners/goTestReport';
import { readJestJson } from '../../src/engine/gate/testRunners/jestJsonReport';
import { junitTestCases } from '../../src/engine/gate/testRunners/junitXml';
import { readNodeTestEvents } from '../../src/engine/gate/testRunners/nodeTestReport';
import { readPytestJunit } from '../../src/engine/gate/testRunners/pytestReport';
import { readReportFile } from '../../src/engine/gate/testRunners/reportFiles';

// Reports are written by code an agent controls: each reader takes what it knows and refuses the rest without throwing.
const top = realpathSync(mkdtempSync(join(tmpdir(), 'taskloom-reports-')));
mkdirSync(join(top, '.git'));
mkdirSync(join(top, 'tests'));
writeFileSync(join(top, 'tests', 'test_x.py'), '');
const paths = checkoutPaths(top);
after(() => rmSync(top, { recursive: true, force: true }));

describe('test runner reports', () => {
  it('reads no report file over the cap, nor one that is a symlink (it could point anywhere)', () => {
    writeFileSync(join(top, 'big.json'), 'x'.repeat(2048));
    assert.equal(readReportFile(join(top, 'big.json'), 1024), undefined);
    assert.equal(readReportFile(join(top, 'big.json'), 4096)?.length, 2048);
    symlinkSync(join(top, 'big.json'), join(top, 'link.json'));
    assert.equal(readReportFile(join(top, 'link.json')), undefined);
    assert.equal(readReportFile(join(top, 'missing.json')), undefined);
  });

  it('reads JUnit test cases: attributes with entities, either quote, self-closing or not; stops at a case left open', () => {
    const xml = `<?xml version="1.0"?><testsuites><testsuite name="pytest">
      <testcase classname="tests.test_x" name="test_a[&lt;1&gt;&amp;&#x263A;]" file="tests/test_x.py"/>
      <testcase classname='tests.test_x' name='test_b' file='tests/test_x.py'><failure message="no">&lt;testcase name="fake"/&gt;</failure></testcase>
      <testcase classname="tests.test_x" name="test_c" file="tests/test_x.py"><skipped/></testcase>
      <testcase classname="tests.test_x" name="test_d" file="tests/test_x.py"><system-out>x</system-out>
    </testsuite></testsuites>`;
    assert.deepEqual(
      junitTestCases(xml).map((c) => [c.attributes.name, c.outcome]),
      [['test_a[<1>&☺]', 'passed'], ['test_b', 'failed'], ['test_c', 'skipped']],
    );
    assert.deepEqual(junitTestCases('<testcase name="x"'), []);
    assert.deepEqual(junitTestCases('not xml at all'), []);
  });

  it('names a pytest failure by its node id from the top of the repository, and an import failure by its file', () => {
    const xml = `<testsuites><testsuite>
      <testcase classname="tests.test_x.TestThing" name="test_y[a.b]" file="tests/test_x.py"><failure/></testcase>
      <testcase classname="" name="tests.test_x" file="tests/test_x.py"><error message="collection failure"/></testcase>
      <testcase classname="tests.test_x" name="test_z" file="tests/test_x.py"/>
    </testsuite></testsuites>`;
    const report = readPytestJunit(xml, paths)!;
    assert.deepEqual(report.failed.map((test) => test.id), ['tests/test_x.py::TestThing::test_y[a.b]', 'tests/test_x.py']);
    assert.equal(report.passed, 1);
    assert.equal(readPytestJunit('<testsuites/>', paths), undefined, 'no test at all: judged by exit code');
  });

  it('refuses a jest report that is not the shape it knows', () => {
    assert.equal(readJestJson('{"testResults": "no"}', 'jest', paths), undefined);
    assert.equal(readJestJson('not json', 'jest', paths), undefined);
    const report = readJestJson(JSON.stringify({ testResults: [{ name: join(top, 'a.test.js'), status: 'failed', message: 'x', assertionResults: [] }] }), 'jest', paths);
    assert.deepEqual(report?.failed, [{ id: 'a.test.js', name: 'a.test.js', file: 'a.test.js' }]);
  });

  it('skips node:test event lines it cannot read and keeps the rest', () => {
    const file = join(top, 'a.test.js');
    const event = (type: string, name: string, nesting: number) => JSON.stringify({ type, name, nesting, file, skip: false, todo: false, suite: false, failureType: type === 'test:fail' ? 'testCodeFailure' : null });
    const text = [event('test:start', 'suite', 0), '{"type":"test:fail"}', 'garbage', event('test:start', 'one', 1), event('test:fail', 'one', 1)].join('\n');
    assert.deepEqual(readNodeTestEvents(text, paths)?.failed.map((test) => test.id), ['a.test.js::suite › one']);
  });

  it('fails a go test as its deepest failing subtest, and a package that did not build (old and new go) as its folder', () => {
    writeFileSync(join(top, 'go.mod'), 'module example.com/m\n');
    const lines = [
      { Action: 'fail', Package: 'example.com/m/a', Test: 'TestT/case' },
      { Action: 'fail', Package: 'example.com/m/a', Test: 'TestT' },
      { Action: 'pass', Package: 'example.com/m/a', Test: 'TestOk' },
      { Action: 'fail', Package: 'example.com/m/a' },
      { ImportPath: 'example.com/m/b', Action: 'build-fail' },
      { Action: 'fail', Package: 'example.com/m' },
    ].map((event) => JSON.stringify(event));
    const report = readGoTestEvents([...lines, 'FAIL\texample.com/m/c [build failed]', 'not json'].join('\n'), paths)!;
    assert.deepEqual(report.failed.map((test) => test.id).sort(), ['.', 'a::TestT/case', 'b', 'c']);
    assert.equal(report.passed, 1);
  });
});
