import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { postIssueStatus } from '../../src/engine/deliver/issueStatus';
import type { RunState } from '../../src/engine/domain/runState';
import { GitHubForge } from '../../src/engine/forge/github';
import { issueStatusMarker } from '../../src/engine/text/issueStatusWords';
import { startGitHubServer } from '../helpers/githubServer';

/** A run's status as the issue comment shows it: only what issueStatusComment reads. */
const runAt = (status: RunState['status'], merged: number): RunState =>
  ({
    runId: 'r1',
    status,
    issue: { repo: 'octo/greeter', number: 5, url: 'https://github.example/octo/greeter/issues/5' },
    taskOrder: ['a', 'b'],
    tasks: { a: { state: merged > 0 ? 'MERGED' : 'BUILDING' }, b: { state: merged > 1 ? 'MERGED' : 'PENDING' } },
    pullRequests: {},
  }) as unknown as RunState;

describe("the issue's status comment", () => {
  it("is Taskloom's own: a marker copied into an outsider's comment is not taken for it, and that comment is never edited", async () => {
    const bare = mkdtempSync(join(tmpdir(), 'taskloom-remote-'));
    const server = await startGitHubServer({ owner: 'octo', repo: 'greeter', bareRepo: bare });
    try {
      server.addIssue(5, { title: 'T', body: 'B', user: 'maintainer', association: 'OWNER' });
      server.addComment(5, { user: 'stranger', association: 'NONE', body: `${issueStatusMarker('r1')}\nCompleted! (not really)` });
      const forge = new GitHubForge('octo/greeter', server.token, server.url);

      await postIssueStatus(forge, runAt('running', 1));
      await postIssueStatus(forge, runAt('running', 2));
      const comments = server.commentsOn(5);
      assert.equal(comments.length, 2, "the stranger's and one of Taskloom's");
      assert.equal(comments[0]!.body, `${issueStatusMarker('r1')}\nCompleted! (not really)`, "the stranger's comment is untouched");
      assert.match(comments[1]!.body, /Running: 2 of 2 tasks done/);
      assert.deepEqual(server.commentEdits.map((e) => e.commentId), [comments[1]!.id], "Taskloom's own comment was edited in place");
    } finally {
      await server.close();
      rmSync(bare, { recursive: true, force: true });
    }
  });
});
