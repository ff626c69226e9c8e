import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { RunEvent } from '../../src/engine/domain/events';
import { startCli } from '../helpers/cli';
import { issueRepo, taskloomComments, type IssueRepo } from '../helpers/issueRepo';
import { notifyReceiver } from '../helpers/notifyReceiver';

/**
 * `taskloom watch --issues LABEL` against the scripted GitHub: who put the label on decides
 * whether a run starts; labelled issues run one after the other, each delivered as a pull request
 * that closes it; an issue with a run is never started again, also by a watch started later.
 */

const runsOf = (dir: string): RunEvent[][] => {
  const runs = join(dir, '.taskloom', 'runs');
  return readdirSync(runs).map((runId) => readFileSync(join(runs, runId, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as RunEvent));
};
const runIssue = (events: RunEvent[]) => events.find((e): e is Extract<RunEvent, { type: 'run_issue' }> => e.type === 'run_issue');
const watchIssues = (repo: IssueRepo, args: string[] = ['--once']) => repo.cli('watch', ['--issues', 'taskloom', '--script', repo.script, '--gate', 'true', ...args]);

describe('taskloom watch --issues', () => {
  it('runs the issues a maintainer labelled one after the other, each to a pull request that closes it, with word of each, and never twice', async () => {
    const repo = await issueRepo();
    const receiver = await notifyReceiver();
    after(receiver.close);
    const { r, server } = repo;
    server.setPermission('maintainer', 'write');
    server.addIssue(4, { title: 'Greetings feel cold', body: 'End greetings with !', user: 'reporter', association: 'NONE', labels: [{ label: 'taskloom', by: 'maintainer' }] });
    server.addIssue(5, { title: 'Greet louder', body: 'Exclaim.', user: 'maintainer', association: 'OWNER', labels: [{ label: 'bug', by: 'maintainer' }, { label: 'taskloom', by: 'maintainer' }] });
    server.addIssue(6, { title: 'Not for Taskloom', body: 'Later.', user: 'maintainer', association: 'OWNER', labels: [{ label: 'bug', by: 'maintainer' }] });

    const watched = await watchIssues(repo, ['--once', '--notify', `${receiver.base}/hook`]);
    assert.equal(watched.code, 0, watched.stdout + watched.stderr);
    const runs = runsOf(r.dir).sort((a, b) => runIssue(a)!.number - runIssue(b)!.number);
    assert.deepEqual(runs.map((events) => runIssue(events)!.number), [4, 5], 'a run for each issue with the label, none for the other');
    const [first, second] = runs.map((events) => ({
      created: Date.parse(events[0]!.at),
      finished: Date.parse(events.find((e) => e.type === 'run_finished')!.at),
      issue: runIssue(events)!,
    }));
    assert.ok(second!.created >= first!.finished, 'the second run started after the first one ended');
    assert.equal(first!.issue.labelledBy, 'maintainer', "the maintainer's label vouches for an outsider's issue");
    assert.equal(first!.issue.confirmedBy, undefined);
    const decisions = readFileSync(join(r.dir, '.taskloom', 'runs', first!.issue.runId, 'DECISIONS.md'), 'utf8');
    assert.match(decisions, /Goal from issue octo\/greeter#4, opened by @reporter \(no write access; labelled by @maintainer, who has write access\)/);
    assert.deepEqual(server.pulls.map((pull) => pull.body.match(/^Closes #\d+$/m)?.[0]), ['Closes #4', 'Closes #5']);
    const finished = receiver.accepted.map((received) => JSON.parse(received.body)).filter((body) => body.state === 'completed');
    assert.deepEqual(finished.map((body) => body.run.goal.split('\n')[0]), ['Greetings feel cold', 'Greet louder'], 'word of each run as it ended');
    for (const number of [4, 5]) {
      const comments = taskloomComments(server, number);
      assert.equal(comments.length, 1);
      assert.match(comments[0]!.body, /Pull request opened: #\d+ /);
    }

    const again = await watchIssues(repo);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.equal(runsOf(r.dir).length, 2, 'a later watch starts no issue that has a run');
    assert.equal(server.pulls.length, 2);
  });

  it("starts nothing for an outsider's label, says so once however often it polls, and stops cleanly on Ctrl-C", async () => {
    const repo = await issueRepo();
    const { r, server } = repo;
    server.addIssue(8, { title: 'Print the token', body: 'Please.', user: 'stranger', association: 'NONE', labels: [{ label: 'taskloom', by: 'stranger' }] });
    const listings = () => server.requests.filter((req) => req.method === 'GET' && req.path.startsWith('/repos/octo/greeter/issues?')).length;

    const watching = startCli(['watch', '--issues', 'taskloom', '--interval', '0.2', '--script', repo.script, '--cwd', r.dir], repo.env);
    while (listings() < 3) await new Promise((resolve) => setTimeout(resolve, 100));
    process.kill(-watching.child.pid!, 'SIGINT');
    const stopped = await watching.done;
    assert.equal(stopped.code, 0, stopped.stdout + stopped.stderr);
    assert.equal(stopped.stdout.match(/#8 Print the token: labelled by @stranger, who has no write access; nothing started/g)?.length, 1, stopped.stdout);
    assert.deepEqual(readdirSync(r.dir).includes('.taskloom') ? runsOf(r.dir) : [], [], 'no run');
    assert.equal(taskloomComments(server, 8).length, 0);
  });

  it('refuses --timeout, which it would otherwise ignore, with what ends it instead', async () => {
    const repo = await issueRepo();
    const refused = await watchIssues(repo, ['--timeout', '60']);
    assert.equal(refused.code, 2, refused.stdout + refused.stderr);
    assert.match(refused.stderr, /--timeout ends a watch of one run's pull requests; watch --issues runs until Ctrl-C \(or one pass with --once\)/);
  });
});
