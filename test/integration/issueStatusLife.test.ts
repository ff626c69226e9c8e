import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readEvents } from '../faults/faultHelpers';
import { ISSUE_SCENARIO, issueRepo, taskloomComments, verdictGreen } from '../helpers/issueRepo';

/**
 * The issue's one status comment follows the run through every command that moves it, not only
 * `run --issue`: a task that needs you, `retry`, `pr`, and `watch` seeing the pull request merged.
 */

const FAILS_FIRST = {
  ...ISSUE_SCENARIO,
  tasks: { exclaim: { actor: [{ fail: 'the model gave up' }, { write: { 'greet.txt': 'Hello!\n' } }], critic: [verdictGreen] } },
};

describe("the issue's status comment over the run's whole life", () => {
  it('is one comment, edited in place from needs you through retry and the pull request to merged', async () => {
    const { server, run, cli, pr } = await issueRepo(FAILS_FIRST);
    server.addIssue(3, { title: 'Greetings feel cold', body: 'End greetings with !', user: 'maintainer', association: 'OWNER' });
    const status = () => {
      const comments = taskloomComments(server, 3);
      assert.equal(comments.length, 1, 'one status comment');
      return comments[0]!.body;
    };

    const stopped = await run(['--issue', '#3', '--yes', '--max-attempts', '1']);
    assert.equal(stopped.code, 1, stopped.stdout + stopped.stderr);
    assert.match(status(), /Needs you: `exclaim`/);

    const retried = await cli('retry', ['exclaim', '--note', 'try again']);
    assert.equal(retried.code, 0, retried.stdout + retried.stderr);
    assert.match(status(), /Completed: 1 task done/);

    const opened = await pr();
    assert.equal(opened.code, 0, opened.stdout + opened.stderr);
    assert.match(status(), /Pull request opened: #1 /);

    Object.assign(server.pulls[0]!, { state: 'closed', merged: true });
    const watched = await cli('watch', ['--interval', '1']);
    assert.equal(watched.code, 0, watched.stdout + watched.stderr);
    assert.match(status(), /Merged: #1 \(https:\/\/github\.example\/octo\/greeter\/pull\/1\)/);
    assert.equal(server.issueComments.filter((c) => c.number === 3).length, 1, 'posted once, then only edited');
  });

  it('a forge that refuses the update is one warning in the run, and the run goes on', async () => {
    const { r, server, run, cli } = await issueRepo(FAILS_FIRST);
    server.addIssue(3, { title: 'Greetings feel cold', body: 'End greetings with !', user: 'maintainer', association: 'OWNER' });
    const stopped = await run(['--issue', '#3', '--yes', '--max-attempts', '1']);
    assert.equal(stopped.code, 1, stopped.stdout + stopped.stderr);

    const retried = await cli('retry', ['exclaim'], { GITHUB_TOKEN: 'ghs_revoked' });
    assert.equal(retried.code, 0, retried.stdout + retried.stderr);
    const warnings = readEvents(r.dir).flatMap((e) => (e.type === 'warning' ? [e.message] : []));
    assert.deepEqual(warnings, ["the issue's status comment was not updated: GitHub refused the token (401: Bad credentials)"]);
    assert.match(retried.stdout, /the issue's status comment was not updated/, 'said as the run goes');
    assert.match(taskloomComments(server, 3)[0]!.body, /Needs you: `exclaim`/, 'the comment is as it was');
  });
});
