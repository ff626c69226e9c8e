import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { RunEvent } from '../../../src/engine/domain/events';
import { runEvents, runScripted, trace } from '../../helpers/scriptedRun';
import { makeTempRepo, type TempRepo } from '../../helpers/tempRepo';

/**
 * Flaky tests, the gate cache and missed regressions, on whole runs through the real CLI, real git,
 * Node's own test runner and the scripted agent.
 */

const repos: TempRepo[] = [];
after(() => repos.forEach((r) => r.cleanup()));

const nodeTest = (imports: string, name: string, body: string) =>
  `import test from 'node:test';\nimport assert from 'node:assert/strict';\n${imports}\ntest(${JSON.stringify(name)}, () => {\n  ${body}\n});\n`;

function library(files: Record<string, string>): TempRepo {
  const r = makeTempRepo({
    files: {
      'package.json': `${JSON.stringify({ name: 'numkit', version: '1.0.0', private: true, type: 'module', scripts: { test: 'node --test' } }, null, 2)}\n`,
      'src/double.js': 'export const double = (n) => n * 2;\n',
      'test/double.test.js': nodeTest("import { double } from '../src/double.js';", 'double doubles', 'assert.equal(double(2), 4);'),
      ...files,
    },
  });
  repos.push(r);
  return r;
}

const one = (id: string) => ({ goal: id, tasks: [{ id, title: id, description: `do ${id}`, acceptance: [], dependsOn: [] }] });
const green = { verdict: { decision: 'green', summary: 'fine', findings: [] } };
const changes = { verdict: { decision: 'changes_required', summary: 'name it better', findings: [{ severity: 'major', category: 'requirements', message: 'triple of a string is not handled' }] } };
const gates = (events: RunEvent[], taskId: string | null) => events.filter((e): e is Extract<RunEvent, { type: 'gate_result' }> => e.type === 'gate_result' && e.taskId === taskId);

describe('the gate judges a change, not a run of the tests', () => {
  it('a test that fails, then passes when rerun alone, is flaky: recorded, and the task passes', () => {
    // Fails the first time in a checkout, passes after: what a test racing a timer does, made certain.
    const flaky = nodeTest("import { existsSync, writeFileSync } from 'node:fs';", 'warms a cache', "const warm = existsSync('.warm');\n  writeFileSync('.warm', '');\n  assert.ok(warm, 'cold cache');");
    const r = library({});
    const scenario = { defaults: { delayMs: 0 }, tasks: { cache: { actor: [{ write: { 'test/cache.test.js': flaky } }], critic: [green] } } };
    runScripted(r.dir, one('cache'), scenario, '--gate', 'npm test --silent', '--no-affected-only');
    const gate = gates(runEvents(r.dir), 'cache').at(-1)!;
    assert.equal(gate.passed, true);
    assert.deepEqual(gate.commands[0]?.tests?.flaky.map((t) => t.name), ['warms a cache']);
    assert.deepEqual(gate.commands[0]?.tests?.newFailures, []);
    assert.equal(trace(r.dir).tasks[0]?.state, 'MERGED');
    assert.equal(r.git(['ls-tree', '-r', '--name-only', trace(r.dir).integration.branch!]).includes('.warm'), false, 'the gate left nothing');
  });

  it('with --flaky-reruns 0 the same test fails the gate', () => {
    const flaky = nodeTest("import { existsSync, writeFileSync } from 'node:fs';", 'warms a cache', "const warm = existsSync('.warm');\n  writeFileSync('.warm', '');\n  assert.ok(warm, 'cold cache');");
    const r = library({});
    const scenario = { defaults: { delayMs: 0 }, tasks: { cache: { actor: [{ write: { 'test/cache.test.js': flaky } }], critic: [green] } } };
    runScripted(r.dir, one('cache'), scenario, '--gate', 'npm test --silent', '--no-affected-only', '--flaky-reruns', '0', '--max-attempts', '1');
    assert.equal(gates(runEvents(r.dir), 'cache').at(-1)?.passed, false);
  });

  it('serves an attempt that changed nothing the result of the gate on the same tree, and says so', () => {
    const r = library({});
    const triple = { write: { 'src/triple.js': 'export const triple = (n) => n * 3;\n' } };
    // The critic asks for a change, the actor leaves the tree as it was: the gate is not run again.
    const scenario = { defaults: { delayMs: 0 }, tasks: { triple: { actor: [triple, triple], critic: [changes, green] } } };
    runScripted(r.dir, one('triple'), scenario, '--gate', 'npm test --silent', '--max-reviews', '3');
    const [first, second] = gates(runEvents(r.dir), 'triple');
    assert.ok(first && second);
    assert.equal(first.cachedFrom, undefined);
    assert.deepEqual(second.cachedFrom, { seq: first.seq, taskId: 'triple', attempt: first.attempt });
    assert.equal(second.commands[0]?.durationMs, first.commands[0]?.durationMs, 'the same result, not a new run');
  });

  it('counts a regression the task gate could not see and the integration gate found', () => {
    // The CLI's test runs src/cli.js as a program: no import joins it to src/double.js.
    const r = library({
      'src/cli.js': "import { double } from './double.js';\nconsole.log(double(Number(process.argv[2])));\n",
      'test/cli.test.js': nodeTest("import { execFileSync } from 'node:child_process';", 'the cli doubles', "assert.equal(execFileSync(process.execPath, ['src/cli.js', '21'], { encoding: 'utf8' }).trim(), '42');"),
    });
    // The task makes double() return a string (its own test is updated); the program's output is unchanged… except it is not.
    const broken = {
      write: {
        'src/double.js': 'export const double = (n) => `${n}${n}`;\n',
        'test/double.test.js': nodeTest("import { double } from '../src/double.js';", 'double doubles', "assert.equal(double(2), '22');"),
      },
    };
    const scenario = { defaults: { delayMs: 0 }, tasks: { strings: { actor: [broken, broken, broken], critic: [green, green, green] } } };
    runScripted(r.dir, one('strings'), scenario, '--gate', 'npm test --silent', '--max-attempts', '2');
    const events = runEvents(r.dir);
    assert.equal(gates(events, 'strings')[0]?.passed, true, 'the task gate ran only double.test.js');
    assert.equal(gates(events, 'strings')[0]?.commands[0]?.selection?.kind, 'affected');
    const missed = events.find((e) => e.type === 'missed_regression');
    assert.ok(missed?.type === 'missed_regression', 'recorded');
    assert.deepEqual(missed.tests.map((t) => t.name), ['the cli doubles']);
    assert.deepEqual(missed.taskIds, ['strings']);
  });
});
