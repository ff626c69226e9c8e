import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { RunEvent } from '../../src/engine/domain/events';
import { writeFileSync } from 'node:fs';
import { ANSWER_CHECK, ANSWER_GATE, answerPlan, THREE_CANDIDATES } from '../helpers/answerCandidates';
import { runCli, writeInputs } from '../helpers/cli';
import { tempRepos } from '../helpers/fileScoped';
import { green, runEvents, runScripted, trace, write } from '../helpers/scriptedRun';

// A task run as several candidates, end to end: the built CLI, real git worktrees, a real gate.

const repo = tempRepos();
const ledger = (dir: string) => readFileSync(join(dir, '.taskloom', 'runs', trace(dir).runId, 'DECISIONS.md'), 'utf8');
const ofType = <T extends RunEvent['type']>(dir: string, type: T) => runEvents(dir).filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);

describe('candidates (taskloom run, real processes)', () => {
  it('gates three candidates, the critic picks the third of the two that passed, and its work is what merges', () => {
    const r = repo({ 'check.js': ANSWER_CHECK, 'answer.txt': 'no\n' });
    const result = runScripted(r.dir, answerPlan(3), THREE_CANDIDATES, ...ANSWER_GATE);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const finished = ofType(r.dir, 'candidate_finished');
    assert.deepEqual(finished.map((e) => [e.candidate, e.passed]).sort(), [[1, false], [2, true], [3, true]]);
    const [picked] = ofType(r.dir, 'candidate_picked');
    assert.deepEqual({ candidate: picked?.candidate, by: picked?.by, passed: picked?.passed }, { candidate: 3, by: 'critic', passed: [2, 3] });
    const { tasks } = trace(r.dir);
    assert.equal(tasks[0]!.state, 'MERGED');
    const integration = `taskloom/${trace(r.dir).runId}/integration`;
    assert.equal(r.git(['show', `${integration}:by.txt`]).trim(), 'three', 'the merged tree is candidate 3\'s');
    assert.match(ledger(r.dir), /Candidate 3 picked by the critic[^\n]*\(2, 3\)/);
    assert.match(ledger(r.dir), /candidate 3 names itself plainly/);
    assert.match(ledger(r.dir), /Candidate 1: gate failed: \\?`node check\.js\\?` exited 1/);
    const task = runEvents(r.dir).filter((e) => e.type === 'gate_result' && e.taskId === 'answer');
    assert.equal(task.length, 1, 'the task\'s own gate of the pick is served from the candidate\'s result');
    assert.ok(task[0]?.type === 'gate_result' && task[0].cachedFrom, 'served from the cache');
    const traced = trace(r.dir).tasks[0]!.candidates!;
    assert.deepEqual(traced.entries.map((c) => [c.candidate, c.passed, c.gate.map((g) => g.exitCode)]), [[1, false, [1]], [2, true, [0]], [3, true, [0]]]);
    const other = r.git(['show', `${traced.entries[1]!.branch}:by.txt`]).trim();
    assert.equal(other, 'two', 'the candidates not picked stay reachable on their branches');
  });

  it('goes on from the candidate that failed least when none passes, into the usual retry loop', () => {
    const r = repo({ 'check.js': ANSWER_CHECK, 'answer.txt': 'no\n' });
    const scenario = {
      tasks: {
        answer: {
          candidates: [{ actor: [write({ 'answer.txt': 'wrong\n', 'by.txt': 'one\n' })] }, { actor: [write({ 'answer.txt': 'nope\n', 'by.txt': 'two\n' })] }],
          // The retry: the actor, in the task's worktree holding candidate 1's work, fixes the answer.
          actor: [write({ 'unused.txt': 'x' }), write({ 'answer.txt': 'ok\n' })],
          critic: [green],
        },
      },
    };
    const result = runScripted(r.dir, answerPlan(2), scenario, ...ANSWER_GATE);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const [picked] = ofType(r.dir, 'candidate_picked');
    assert.deepEqual({ candidate: picked?.candidate, by: picked?.by, passed: picked?.passed }, { candidate: 1, by: 'gate', passed: [] });
    const transitions = ofType(r.dir, 'task_transition').map((e) => e.event);
    assert.ok(transitions.includes('RETRY_BUILD'), transitions.join(' '));
    const integration = `taskloom/${trace(r.dir).runId}/integration`;
    assert.equal(r.git(['show', `${integration}:by.txt`]).trim(), 'one', 'the retry built on candidate 1\'s work');
    assert.equal(r.git(['show', `${integration}:answer.txt`]).trim(), 'ok');
    assert.match(ledger(r.dir), /no candidate passed the gate/);
  });

  it('does not start a candidate that would overrun the task budget, and says so in the ledger', () => {
    const r = repo({ 'check.js': ANSWER_CHECK, 'answer.txt': 'no\n' });
    const scenario = {
      defaults: { costUsd: 0.4 },
      tasks: { answer: { candidates: [{ actor: [write({ 'answer.txt': 'ok\n' })] }, { actor: [write({ 'answer.txt': 'ok\n' })] }, { actor: [write({ 'answer.txt': 'ok\n' })] }], critic: [green] } },
    };
    // One at a time (--parallel 1), so each start knows what the ones before it cost.
    const result = runScripted(r.dir, answerPlan(3), scenario, ...ANSWER_GATE, '--parallel', '1', '--task-budget-usd', '1');
    const skipped = ofType(r.dir, 'candidate_skipped');
    assert.deepEqual(skipped.map((e) => e.candidate), [3], result.stdout + result.stderr);
    assert.equal(ofType(r.dir, 'candidate_started').length, 2);
    assert.match(ledger(r.dir), /Candidate 3 not started: another candidate \(about \$0\.4000\) would overrun the task "answer" budget of \$1\.00/);
  });

  it('takes the number of candidates from --candidates, and refuses an agent it cannot call with what to do', () => {
    const r = repo({ 'check.js': ANSWER_CHECK, 'answer.txt': 'no\n' });
    const scenario = { tasks: { answer: { actor: [write({ 'answer.txt': 'ok\n' })], critic: [green] } } };
    const result = runScripted(r.dir, answerPlan(), scenario, ...ANSWER_GATE, '--candidates', '2');
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.deepEqual(ofType(r.dir, 'candidate_started').map((e) => e.candidate).sort(), [1, 2]);
    const [created] = ofType(r.dir, 'run_created');
    assert.deepEqual(created?.config.candidates, { count: 2 });
    const refused = runScripted(repo({ 'check.js': ANSWER_CHECK }).dir, answerPlan(), scenario, ...ANSWER_GATE, '--candidates', '2', '--candidate-agents', 'scripted,gpt');
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /--candidate-agents must be one of claude, codex, command, scripted, got "gpt"/);
  });

  it('lets a person choose another candidate while the task waits for them: that one is reviewed and merged', () => {
    const r = repo({ 'check.js': ANSWER_CHECK, 'answer.txt': 'no\n' });
    const changes = { verdict: { decision: 'changes_required', summary: 'not this one', findings: [{ severity: 'major', category: 'requirements', message: 'wrong file' }] }, delayMs: 0 };
    const scenario = (critic: object) => ({
      tasks: {
        answer: {
          candidates: [{ actor: [write({ 'answer.txt': 'ok\n', 'by.txt': 'one\n' })] }, { actor: [write({ 'answer.txt': 'ok\n', 'by.txt': 'two\n' })] }],
          compare: [{ output: { pick: 2, reasons: 'two is shorter' }, delayMs: 0 }],
          critic: [critic],
        },
      },
    });
    const inputs = writeInputs({ 'plan.json': answerPlan(2), 'scenario.json': scenario(changes) });
    const first = runCli(['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', ...ANSWER_GATE, '--max-reviews', '1']);
    assert.equal(trace(r.dir).tasks[0]!.state, 'NEEDS_HUMAN', first.stdout + first.stderr);
    const unknown = runCli(['choose', 'answer', '5', '--cwd', r.dir]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Task "answer" has no candidate 5 with work to take[\s\S]*Its candidates with work: 1, 2/);
    // The reviewer now approves: the person's choice goes through the same review.
    writeFileSync(inputs['scenario.json']!, JSON.stringify(scenario(green)));
    const chosen = runCli(['choose', 'answer', '1', '--note', 'one names itself', '--cwd', r.dir]);
    assert.equal(chosen.code, 0, chosen.stdout + chosen.stderr);
    assert.equal(trace(r.dir).tasks[0]!.state, 'MERGED');
    assert.equal(r.git(['show', `taskloom/${trace(r.dir).runId}/integration:by.txt`]).trim(), 'one', 'the merged tree is the chosen candidate\'s');
    assert.match(ledger(r.dir), /Candidate 1 picked by a person[^\n]*\n\s*- chosen by you: one names itself/);
    assert.equal(ofType(r.dir, 'candidate_started').length, 2, 'no candidate was built again');
  });

  it('sets each candidate\'s worktree up as a task\'s before its actor starts', () => {
    const ready = "if (!require('node:fs').existsSync('.ready')) process.exit(3);\n";
    const r = repo({ 'check.js': ready + ANSWER_CHECK, 'answer.txt': 'no\n', '.gitignore': '.ready\n' });
    const scenario = { tasks: { answer: { actor: [write({ 'answer.txt': 'ok\n' })], critic: [green] } } };
    const result = runScripted(r.dir, answerPlan(2), scenario, ...ANSWER_GATE, '--setup', 'touch .ready');
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.deepEqual(ofType(r.dir, 'candidate_finished').map((e) => [e.candidate, e.passed]).sort(), [[1, true], [2, true]]);
  });
});
