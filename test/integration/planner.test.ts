import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
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
  const script = inputs['scenario.json']!;
  const result = runCli(['run', '--cwd', r.dir, '--goal', 'add two files', '--script', script, '--yes', '--gate', 'true']);
  const trace = JSON.parse(runCli(['trace', '--json', '--cwd', r.dir]).stdout) as TraceReport;
  const runDir = join(r.dir, '.taskloom', 'runs', trace.runId);
  return { r, script, result, trace, decisions: readFileSync(join(runDir, 'DECISIONS.md'), 'utf8'), log: readFileSync(join(runDir, 'events.jsonl'), 'utf8') };
}

/** The file the CLI's next steps name for the plan to fix, after checking it says how to start from it. */
function savedPlanOf(stdout: string): string {
  const saved = /fix the plan in: (\S+)/.exec(stdout)?.[1];
  assert.ok(saved, `the next steps name the saved plan: ${stdout}`);
  assert.match(stdout, new RegExp(`then start it: +taskloom run --plan ${saved.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} --cwd `));
  return saved;
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

  it('fails clearly when the planner never gives a valid plan, keeping its answer, and says how to plan again', () => {
    const { result, trace, log } = planRun({ planner: [{ raw: 'Sure! Here is my plan: step one, step two.' }] });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /no valid plan after one repair request/);
    assert.match(result.stderr, /--plan FILE/);
    assert.equal(trace.status, 'failed');
    assert.match(log, /Sure! Here is my plan/);
    assert.match(result.stdout, /plan again: +taskloom run --goal 'add two files' --cwd /);
    assert.equal(readFileSync(savedPlanOf(result.stdout), 'utf8'), 'Sure! Here is my plan: step one, step two.', 'its answer, to write a plan from');
  });

  it('keeps a plan whose task has no description: the task is a finding, the others stay, and the saved plan starts once it is filled in', () => {
    const incomplete = { goal: 'x', tasks: [task('one'), { ...task('two', ['one']), description: '  ' }, task('three')] };
    const { r, script, result, trace } = planRun({
      planner: [{ output: incomplete }],
      fallback: { actor: [{ write: { 'file.txt': 'x' } }], critic: [green] },
    });
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(result.stdout, /two +Task two .*\(no description\)/, 'the plan is printed with the finding on its task');
    assert.match(result.stdout, /The plan cannot start: task "two" has no description\. Nothing was run/);
    assert.equal(trace.usage.calls, 3, 'planner, one repair request, plan review: no actor ran');
    assert.equal(trace.status, 'cancelled');
    assert.ok(trace.tasks.every((t) => t.state === 'PENDING'), 'nothing was built');

    const saved = savedPlanOf(result.stdout);
    const plan = JSON.parse(readFileSync(saved, 'utf8')) as { tasks: Array<{ id: string; description: string; dependsOn: string[] }> };
    assert.deepEqual(plan.tasks.map((t) => [t.id, t.description, t.dependsOn]), [['one', 'do one', []], ['two', '', ['one']], ['three', 'do three', []]]);
    plan.tasks[1]!.description = 'do two';
    writeFileSync(saved, JSON.stringify(plan));
    const again = runCli(['run', '--cwd', r.dir, '--plan', saved, '--script', script, '--yes', '--gate', 'true']);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    const second = JSON.parse(runCli(['trace', '--json', '--cwd', r.dir]).stdout) as TraceReport;
    assert.deepEqual(second.tasks.map((t) => [t.id, t.state]), [['one', 'MERGED'], ['two', 'MERGED'], ['three', 'MERGED']]);
  });

  it('keeps the JSON of a plan it rejects, laid out, to fix and start from', () => {
    const cyclic = { goal: 'x', tasks: [task('a', ['b']), task('b', ['a'])] };
    const { result, trace } = planRun({ planner: [{ text: `Here it is: ${JSON.stringify(cyclic)}` }] });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /dependency cycle: a → b → a/);
    assert.equal(trace.status, 'failed');
    assert.deepEqual(JSON.parse(readFileSync(savedPlanOf(result.stdout), 'utf8')), cyclic);
  });
});
