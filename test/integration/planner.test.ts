import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { TraceReport } from '../../src/engine/report/traceReport';
import { runCli, writeInputs } from '../helpers/cli';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

const repos: TempRepo[] = [];
after(() => repos.forEach((r) => r.cleanup()));

const task = (id: string, dependsOn: string[] = []) => ({ id, title: `Task ${id}`, description: `do ${id}`, acceptance: [`${id} exists`], dependsOn });
const green = { verdict: { decision: 'green', summary: 'fine', findings: [] } };

function planRun(scenario: object) {
  const r = makeTempRepo({ files: { 'README.md': '# sample\n' } });
  repos.push(r);
  const inputs = writeInputs({ 'scenario.json': { defaults: { delayMs: 0 }, ...scenario } });
  const result = runCli(['run', '--cwd', r.dir, '--goal', 'add two files', '--script', inputs['scenario.json']!, '--yes', '--gate', 'true']);
  const trace = JSON.parse(runCli(['trace', '--json', '--cwd', r.dir]).stdout) as TraceReport;
  const runDir = join(r.dir, '.taskloom', 'runs', trace.runId);
  return { r, result, trace, decisions: readFileSync(join(runDir, 'DECISIONS.md'), 'utf8'), log: readFileSync(join(runDir, 'events.jsonl'), 'utf8') };
}

describe('planning a goal', () => {
  it('plans, has the critic review the plan, revises it once, then runs it', () => {
    const first = { goal: 'x', rationale: 'one task is enough', tasks: [task('one')] };
    const second = { goal: 'x', rationale: 'the second file needs the first', tasks: [task('one'), task('two', ['one'])] };
    const { result, trace, decisions } = planRun({
      planner: [{ output: first }, { output: second }],
      planReview: [
        { verdict: { decision: 'changes_required', summary: 'misses a file', findings: [{ severity: 'major', category: 'requirements', message: 'The goal asks for two files.' }] } },
        green,
      ],
      fallback: { actor: [{ write: { 'file.txt': 'x' } }], critic: [green] },
    });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /draft 1: one/);
    assert.match(result.stdout, /changes required/);
    assert.match(result.stdout, /draft 2: one, two/);
    assert.deepEqual(trace.tasks.map((t) => [t.id, t.state]), [['one', 'MERGED'], ['two', 'MERGED']]);
    assert.equal(trace.goal, 'add two files');
    assert.equal(trace.usage.byRole.planner!.inputTokens, 0);
    assert.match(decisions, /Planner draft 2: 2 tasks/);
    assert.match(decisions, /the second file needs the first/);
    assert.match(decisions, /The goal asks for two files/);
  });

  it('asks the planner once to repair an invalid plan', () => {
    const { result, trace } = planRun({
      planner: [{ output: { goal: 'x', tasks: [task('a', ['ghost'])] } }, { output: { goal: 'x', tasks: [task('a')] } }],
      fallback: { critic: [green] },
    });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.deepEqual(trace.tasks.map((t) => t.id), ['a']);
    assert.equal(trace.usage.calls, 1 + 1 + 1 + 1 + 1, 'planner, repair, plan review, actor, critic');
  });

  it('fails clearly when the planner never gives a valid plan, keeping its answer', () => {
    const { result, trace, log } = planRun({ planner: [{ raw: 'Sure! Here is my plan: step one, step two.' }] });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /no valid plan after one repair request/);
    assert.match(result.stderr, /--plan FILE/);
    assert.equal(trace.status, 'failed');
    assert.match(log, /Sure! Here is my plan/);
  });
});
