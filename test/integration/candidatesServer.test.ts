import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { ResponseError } from 'vscode-jsonrpc/node';
import { ApprovePlanRequest, ChooseCandidateRequest, DiffRequest, FileAtCommitRequest, GetRunRequest, StartGoalRequest } from '../../src/protocol/engineProtocol';
import { writeInputs } from '../helpers/cli';
import { EngineServerProcess } from '../helpers/engineServer';
import { scriptedSettings } from '../helpers/scriptedSettings';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

// What the editor's Choose Another Candidate asks of the bundled engine server: real git, the scripted agent.

const repos: TempRepo[] = [];
let server: EngineServerProcess | undefined;
after(async () => {
  await server?.stop();
  repos.forEach((r) => r.cleanup());
});

const write = (files: Record<string, string>) => ({ write: files, delayMs: 0 });
const verdict = (decision: 'green' | 'changes_required') => ({
  verdict: { decision, summary: decision, findings: decision === 'green' ? [] : [{ severity: 'major', category: 'requirements', message: 'not this one' }] },
  delayMs: 0,
});
const scenario = (critic: 'green' | 'changes_required') => ({
  tasks: {
    answer: {
      candidates: [{ actor: [write({ 'by.txt': 'one\n' })] }, { actor: [write({ 'by.txt': 'two\n' })] }],
      compare: [{ output: { pick: 2, reasons: 'two is shorter' }, delayMs: 0 }],
      critic: [verdict(critic)],
    },
  },
});

describe('choosing a candidate through the engine server', () => {
  it('takes the candidate a person chose while the task waits for them, and drives the run on to merge it', async () => {
    server = await EngineServerProcess.start({});
    const r = makeTempRepo();
    repos.push(r);
    const plan = { goal: 'answer', tasks: [{ id: 'answer', title: 'Answer', description: 'write by.txt', acceptance: [], dependsOn: [], candidates: 2 }] };
    const settings = scriptedSettings(scenario('changes_required'), { maxReviewCycles: 1 });
    const { runId } = await server.request(StartGoalRequest.type, { folder: r.dir, planFile: writeInputs({ 'plan.json': plan })['plan.json']!, settings });
    await server.request(ApprovePlanRequest.type, { folder: r.dir, runId, by: 'autopilot' });
    await server.waitForEnd(runId);
    const stateOf = () => server!.request(GetRunRequest.type, { folder: r.dir, runId });
    assert.equal((await stateOf()).tasks.answer!.state, 'NEEDS_HUMAN');
    assert.deepEqual((await stateOf()).tasks.answer!.candidates?.picked, { candidate: 2, by: 'critic', reasons: 'two is shorter', passed: [1, 2] });

    // Each candidate's card opens its own diff: what it built, against the task's start.
    const diff = await server.request(DiffRequest.type, { folder: r.dir, runId, taskId: 'answer', candidate: 1 });
    assert.deepEqual(diff.files.map((f) => f.path), ['by.txt']);
    assert.equal((await server.request(FileAtCommitRequest.type, { folder: r.dir, commit: diff.head, path: 'by.txt' })).content, 'one\n');
    const noDiff = await server.request(DiffRequest.type, { folder: r.dir, runId, taskId: 'answer', candidate: 7 }).then(
      () => assert.fail('candidate 7 has no diff'),
      (error: unknown) => error,
    );
    assert.ok(noDiff instanceof ResponseError && /has no candidate 7 with committed work/.test(noDiff.message), String(noDiff));

    const refused = await server.request(ChooseCandidateRequest.type, { folder: r.dir, runId, taskId: 'answer', candidate: 7 }).then(
      () => assert.fail('candidate 7 does not exist'),
      (error: unknown) => error,
    );
    assert.ok(refused instanceof ResponseError && /has no candidate 7 with work to take/.test(refused.message), String(refused));

    // The reviewer approves now: the person's choice goes through the same review.
    writeFileSync(settings.scriptedScenario!, JSON.stringify(scenario('green')));
    const before = server.lastSeq(runId);
    await server.request(ChooseCandidateRequest.type, { folder: r.dir, runId, taskId: 'answer', candidate: 1, note: 'one names itself' });
    const end = await server.waitForEnd(runId, before);
    assert.equal(end.type === 'run_finished' && end.status, 'completed');
    const state = await stateOf();
    assert.equal(state.tasks.answer!.state, 'MERGED');
    assert.deepEqual(state.tasks.answer!.candidates?.picked, { candidate: 1, by: 'person', reasons: 'chosen by you: one names itself', passed: [1, 2] });
    assert.equal(r.git(['show', `${state.integration.branch}:by.txt`]).trim(), 'one');
  });
});
