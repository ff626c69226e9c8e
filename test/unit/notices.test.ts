import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunEvent, RunEventBody } from '../../src/engine/domain/events';
import { noticeMemoryOf, noticesFor, type Notice, type NoticeMemory } from '../../src/engine/domain/notices';
import { foldEvents } from '../../src/engine/domain/projection';
import type { RunState } from '../../src/engine/domain/runState';
import { notifyRequest } from '../../src/engine/notify/notifyRequest';
import { parseNotifyTarget } from '../../src/engine/notify/notifyTargets';
import { noticeMessage } from '../../src/engine/text/noticeWords';
import { redactSecrets } from '../../src/engine/io/redactSecrets';
import { EventBuilder } from '../helpers/eventBuilder';

/** The notices each body gives, in order, on a run with a $1.00 budget, remembering between them as the notifier does. */
function noticesOf(bodies: RunEventBody[]): Notice[][] {
  const run = new EventBuilder();
  const created = run.events[0] as Extract<RunEvent, { type: 'run_created' }>;
  created.config = { ...created.config, budgets: { runUsd: 1 } };
  let memory: NoticeMemory = noticeMemoryOf(foldEvents(run.events) as RunState);
  return bodies.map((body) => {
    run.add(body);
    const state = foldEvents(run.events) as RunState;
    const next = noticesFor(memory, run.events[run.events.length - 1]!, state);
    memory = next.memory;
    return next.notices;
  });
}

const observed = (checks: Array<'pending' | 'success' | 'failure'>): RunEventBody => ({
  type: 'pr_observed',
  number: 7,
  headSha: 'b'.repeat(40),
  state: 'open',
  mergeable: true,
  checks: checks.map((status, i) => ({ name: `check-${i}`, status })),
  review: 'none',
});

describe('word of a run: what a person away from the editor is told', () => {
  it('checks give word when they turn red or green, not at first sight nor while the same', () => {
    const opened: RunEventBody = { type: 'pull_request', taskId: null, number: 7, url: 'https://github.com/o/r/pull/7', head: 'taskloom/x', base: 'main', action: 'opened', repo: 'o/r', remote: 'origin' };
    const kinds = noticesOf([opened, observed(['success']), observed(['success']), observed(['failure', 'success']), observed(['pending']), observed(['success', 'success'])]);
    assert.deepEqual(kinds.map((notices) => notices.map((n) => (n.kind === 'checks_changed' ? `${n.to}:${n.failing.join(',')}` : n.kind))), [
      [], [], [], ['red:check-0'], [], ['green:'],
    ]);
  });

  it('a process that follows a run later starts from the checks as last recorded, so a flip meanwhile is told', () => {
    const run = new EventBuilder();
    run.add({ type: 'pull_request', taskId: null, number: 7, url: 'https://github.com/o/r/pull/7', head: 'taskloom/x', base: 'main', action: 'opened', repo: 'o/r', remote: 'origin' });
    run.add(observed(['failure']));
    const memory = noticeMemoryOf(foldEvents(run.events) as RunState);
    run.add(observed(['success']));
    const { notices } = noticesFor(memory, run.events[run.events.length - 1]!, foldEvents(run.events) as RunState);
    assert.deepEqual(notices.map((n) => n.kind === 'checks_changed' && n.to), ['green']);
  });

  it('a run budget gives word once, when 80 % of it is spent', () => {
    const call = (costUsd: number): RunEventBody => ({
      type: 'runner_call', taskId: 'a', role: 'actor', agent: 'scripted', model: 'script', status: 'ok', durationMs: 1, quotaHit: false,
      usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd },
    });
    const notices = noticesOf([call(0.5), call(0.35), call(0.1)]);
    assert.deepEqual(notices.map((n) => n.length), [0, 1, 0]);
    assert.deepEqual(notices[1], [{ kind: 'budget_near', spent: "$0.85 of the run's $1.00 budget" }]);
  });

  it('a task budget gives word once per task, when 80 % of it is spent, naming the task', () => {
    const run = new EventBuilder();
    const created = run.events[0] as Extract<RunEvent, { type: 'run_created' }>;
    created.config = { ...created.config, budgets: { taskUsd: 1 } };
    let memory = noticeMemoryOf(foldEvents(run.events) as RunState);
    const call = (taskId: string, costUsd: number): Notice[] => {
      run.add({
        type: 'runner_call', taskId, role: 'actor', agent: 'scripted', model: 'script', status: 'ok', durationMs: 1, quotaHit: false,
        usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd },
      });
      const next = noticesFor(memory, run.events[run.events.length - 1]!, foldEvents(run.events) as RunState);
      memory = next.memory;
      return next.notices;
    };
    assert.deepEqual([call('a', 0.5), call('a', 0.4), call('a', 0.05), call('b', 0.9)], [
      [],
      [{ kind: 'task_budget_near', taskId: 'a', spent: '$0.90 of its $1.00 budget' }],
      [],
      [{ kind: 'task_budget_near', taskId: 'b', spent: '$0.90 of its $1.00 budget' }],
    ]);
    assert.deepEqual(noticeMemoryOf(foldEvents(run.events) as RunState).taskBudgetsWarned, ['a', 'b'], 'a process following the run later does not tell it again');
    const message = noticeMessage('run-1', 'ship it', [{ kind: 'task_budget_near', taskId: 'a', spent: '$0.90 of its $1.00 budget' }]);
    assert.deepEqual([message.lines, message.taskId, message.state], [['Task a spent $0.90 of its $1.00 budget'], 'a', 'budget_near']);
  });

  it('a reviewed plan is word that it waits for approval; a task needing you and the run’s end are word too', () => {
    const notices = noticesOf([
      { type: 'plan_reviewed', round: 1, verdict: { decision: 'green', summary: 'fine', findings: [] }, blocking: 0 },
      { type: 'run_finished', status: 'paused', summary: 'paused by you' },
      { type: 'run_finished', status: 'failed', summary: 'the integration gate failed' },
    ]);
    assert.deepEqual(notices, [[{ kind: 'plan_ready', tasks: 2 }], [], [{ kind: 'run_finished', status: 'failed', summary: 'the integration gate failed' }]]);
    const message = noticeMessage('run-1', 'two tasks', [...notices[0]!, ...notices[2]!]);
    assert.deepEqual(message.lines, ['The plan (2 tasks) is ready for your approval', 'The run failed: the integration gate failed']);
    assert.equal(message.state, 'failed');
  });

  it('several tasks needing you at once are one line naming them all', () => {
    const message = noticeMessage('run-1', 'ship it', [
      { kind: 'task_needs_you', taskId: 'a', reason: 'gate failed' },
      { kind: 'task_needs_you', taskId: 'b', reason: 'gate failed' },
      { kind: 'task_needs_you', taskId: 'c', reason: 'critic gave up' },
    ]);
    assert.deepEqual(message.lines, ['3 tasks need you: a, b, c']);
    assert.equal(message.urgent, true);
    assert.equal(message.state, 'needs_human');
  });

  it('targets are read by their URL, and a bad one is a clear error that shows no token', () => {
    assert.equal(parseNotifyTarget('https://hooks.slack.com/services/T0/B0/secretslacktoken').format, 'slack');
    assert.deepEqual(parseNotifyTarget('ntfy://ntfy.example.com/my-alerts'), { format: 'ntfy', url: 'https://ntfy.example.com/my-alerts', shown: 'https://ntfy.example.com/…' });
    assert.equal(parseNotifyTarget('https://ntfy.sh/my-alerts').format, 'ntfy');
    assert.equal(parseNotifyTarget('slack+http://127.0.0.1:9/hook').format, 'slack');
    assert.equal(parseNotifyTarget('https://example.com/hook?token=abc').format, 'webhook');
    assert.throws(() => parseNotifyTarget('teams+https://example.com/hooktoken123'), (error: Error) => /"teams" is not a notification format/.test(error.message) && !error.message.includes('hooktoken123'));
    assert.throws(() => parseNotifyTarget('ntfy://ntfy.sh/a/b'), /one topic/);
  });

  it('a target’s token is hidden from what Taskloom writes, and the words around it are not', () => {
    parseNotifyTarget('https://hooks.slack.com/services/T0A1B2C3/B0D4E5F6/abcdefghijklmnopqrstuvwx');
    parseNotifyTarget('ntfy://ntfy.sh/quiet-topic');
    const text = 'posted to services T0A1B2C3 with abcdefghijklmnopqrstuvwx and the quiet-topic';
    assert.equal(redactSecrets(text, {}), 'posted to services [REDACTED] with [REDACTED] and the [REDACTED]');
  });

  it('each format gets its own request: webhook JSON, Slack text and blocks, ntfy headers', () => {
    const message = noticeMessage('run-1', 'ship <it>', [{ kind: 'checks_changed', number: 7, url: 'https://github.com/o/r/pull/7', to: 'red', failing: ['lint'] }]);
    const webhook = notifyRequest(parseNotifyTarget('https://example.com/hook'), 'run-1', 'ship <it>', message);
    assert.deepEqual(JSON.parse(webhook.body), {
      source: 'taskloom', version: 1, run: { id: 'run-1', goal: 'ship <it>' }, task: null, state: 'checks_red',
      reason: 'Pull request #7: checks turned red (lint)', urgent: true, link: 'https://github.com/o/r/pull/7',
      title: 'Taskloom run-1: ship <it>', lines: ['Pull request #7: checks turned red (lint)'],
    });
    const slack = JSON.parse(notifyRequest(parseNotifyTarget('https://hooks.slack.com/services/x'), 'run-1', 'ship <it>', message).body);
    assert.equal(slack.text, 'Taskloom run-1: ship <it>\nPull request #7: checks turned red (lint)');
    assert.match(slack.blocks[0].text.text, /ship &lt;it&gt;/);
    const ntfy = notifyRequest(parseNotifyTarget('ntfy://ntfy.sh/alerts-topic'), 'run-1', 'ship <it>', message);
    assert.equal(ntfy.headers.priority, 'high');
    assert.equal(ntfy.headers.click, 'https://github.com/o/r/pull/7');
    assert.equal(ntfy.body, 'Pull request #7: checks turned red (lint)');
  });
});
