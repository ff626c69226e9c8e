import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { watchTarget } from '../../../src/engine/usecases/keepPullRequestsGreen';
import { openPullRequest } from '../../../src/engine/usecases/openPullRequest';
import { NoPullRequestError } from '../../../src/engine/usecases/useCaseErrors';
import { deliveredRun, OWNER, REPO, type Delivery } from '../../helpers/deliveryRepo';
import { openDoor } from '../../helpers/useCaseDoor';

const deliveries: Delivery[] = [];
const doors: Array<{ close(): void }> = [];
after(async () => {
  doors.forEach((d) => d.close());
  for (const d of deliveries) await d.cleanup();
});

describe('openPullRequest and what keeping it green watches', () => {
  it('has nothing to watch before a pull request is open; opens one for the newest run, then updates it; the watch targets it', async () => {
    const delivery = await deliveredRun();
    deliveries.push(delivery);
    const d = await openDoor(delivery.r.dir);
    doors.push(d);
    const forge = { token: delivery.server.token, apiUrl: delivery.server.url };

    await assert.rejects(watchTarget(d.engine.store, forge), (error: unknown) => {
      assert.ok(error instanceof NoPullRequestError, String(error));
      assert.equal(error.code, 'no_pull_request');
      assert.deepEqual(error.next, [{ kind: 'openPullRequest', runId: delivery.runId }]);
      return true;
    });

    const first = await openPullRequest(d, forge);
    assert.equal(first.runId, delivery.runId);
    assert.deepEqual(first.opened.map((o) => [o.taskId, o.action, o.pullRequest.head]), [[null, 'opened', `taskloom/${delivery.runId}/integration`]]);
    const again = await openPullRequest(d, { runId: delivery.runId, ...forge });
    assert.deepEqual(again.opened.map((o) => [o.action, o.pullRequest.number]), [['updated', first.opened[0]!.pullRequest.number]], 'never a second one');

    const target = await watchTarget(d.engine.store, forge);
    assert.equal(target.runId, delivery.runId);
    assert.deepEqual(target.pullRequests.map((p) => p.number), [first.opened[0]!.pullRequest.number]);
    assert.equal(target.forge.slug, `${OWNER}/${REPO}`, 'the forge the pull request is on');
    assert.equal((await target.forge.findPullRequest(`taskloom/${delivery.runId}/integration`))?.number, first.opened[0]!.pullRequest.number);
  });
});
