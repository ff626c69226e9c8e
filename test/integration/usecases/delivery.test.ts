import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Plan } from '../../../src/engine/domain/plan';
import { UnpublishedWorkError } from '../../../src/engine/deliver/discardRun';
import { WorkspaceError } from '../../../src/engine/workspace/errors';
import { applyIntegration, previewApply } from '../../../src/engine/usecases/applyIntegration';
import { collectLeftovers } from '../../../src/engine/usecases/collectLeftovers';
import { discardRun } from '../../../src/engine/usecases/discardRun';
import type { FrontDoor } from '../../../src/engine/usecases/frontDoor';
import { RunBusyError } from '../../../src/engine/usecases/useCaseErrors';
import { green, task, write } from '../../helpers/scriptedRun';
import { makeTempRepo, type TempRepo } from '../../helpers/tempRepo';
import { driveToEnd, openDoor, scriptedRun } from '../../helpers/useCaseDoor';

const repos: TempRepo[] = [];
const doors: Array<{ close(): void }> = [];
after(() => {
  doors.forEach((d) => d.close());
  repos.forEach((r) => r.cleanup());
});

const plan: Plan = { goal: 'two notes', tasks: [task('a'), task('b', ['a'])] };
const scenario = { tasks: { a: { actor: [write({ 'a.txt': 'a\n' })], critic: [green] }, b: { actor: [write({ 'b.txt': 'b\n' })], critic: [green] } } };

/** A repository with a completed run of `plan`, and a door on it. */
async function completed(over: Parameters<typeof openDoor>[1] = {}): Promise<{ r: TempRepo; d: FrontDoor; runId: string }> {
  const r = makeTempRepo();
  repos.push(r);
  const d = await openDoor(r.dir, over);
  doors.push(d);
  const session = scriptedRun(d, plan, scenario);
  assert.equal(await driveToEnd(d, session), 'completed');
  return { r, d, runId: session.runId };
}

describe('delivery use cases: apply, discard, gc', () => {
  it('previews an apply changing nothing, applies the newest run as it said, and a second apply changes nothing', async () => {
    const { r, d, runId } = await completed();
    const before = r.git(['rev-parse', 'main']);
    const preview = await previewApply(d, { history: 'squash' });
    assert.deepEqual(preview, { runId, branch: 'main', history: 'squash', commits: 2, merged: 2, alreadyApplied: false, leftOut: [] });
    assert.equal(r.git(['rev-parse', 'main']), before);
    const applied = await applyIntegration(d, { history: 'squash' });
    assert.equal(applied.commits, preview.commits, 'it made what it said');
    assert.equal(applied.commit, r.git(['rev-parse', 'main']));
    assert.deepEqual(r.git(['log', '--format=%s', `${before}..main`]).split('\n'), ['Task b', 'Task a']);
    assert.equal((await applyIntegration(d, { runId })).alreadyApplied, true);
  });

  it('refuses to apply a run that is not complete, and one its door drives', async () => {
    const r = makeTempRepo();
    repos.push(r);
    const d = await openDoor(r.dir);
    doors.push(d);
    const waiting = scriptedRun(d, plan, scenario, { approve: false });
    await assert.rejects(previewApply(d, { runId: waiting.runId }), WorkspaceError);
    const busy = await completed({ backgroundWork: () => 'driving' });
    await assert.rejects(applyIntegration(busy.d, { runId: busy.runId }), RunBusyError);
    await assert.rejects(discardRun(busy.d, { runId: busy.runId }), RunBusyError);
  });

  it('discards a run only with force while its approved work exists nowhere else; gc keeps such a run', async () => {
    const { r, d, runId } = await completed();
    const kept = await collectLeftovers(d, { dryRun: true });
    assert.deepEqual([kept.freed, kept.kept.map((k) => [k.runId, k.reason.kind])], [[], [[runId, 'unpublished_work']]]);
    await assert.rejects(discardRun(d, { runId }), (error: unknown) => error instanceof UnpublishedWorkError && error.taskIds.join() === 'a,b');
    const removed = await discardRun(d, { runId, force: true });
    assert.equal(removed.runId, runId);
    assert.ok(removed.branches.length > 0);
    assert.deepEqual(d.engine.store.listRuns(), []);
    assert.equal(r.git(['for-each-ref', `refs/heads/taskloom/${runId}`]), '');
  });

  it('gc frees what an applied run left, keeping its record', async () => {
    const { d, runId } = await completed();
    await applyIntegration(d, { runId });
    const dry = await collectLeftovers(d, { dryRun: true });
    assert.deepEqual(dry.freed.map((f) => f.runId), [runId]);
    assert.ok(dry.freed[0]!.branches > 0);
    const done = await collectLeftovers(d, {});
    assert.equal(done.dryRun, false);
    assert.deepEqual((await collectLeftovers(d, { dryRun: true })).freed, [], 'nothing left to free');
    assert.deepEqual(d.engine.store.listRuns().map((e) => e.runId), [runId]);
  });
});
