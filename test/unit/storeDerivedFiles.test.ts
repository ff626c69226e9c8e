import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { EVENT_SCHEMA_VERSION, type RunEvent, type RunEventBody } from '../../src/engine/domain/events';
import { foldEvents } from '../../src/engine/domain/projection';
import type { RunState } from '../../src/engine/domain/runState';
import { TaskStateMachine } from '../../src/engine/domain/taskStateMachine';
import type { TaskEvent, TaskState } from '../../src/engine/domain/taskStates';
import type { CriticFinding } from '../../src/engine/domain/verdict';
import { renderDecisionsMarkdown, renderRunJson } from '../../src/engine/store/derivedFiles';
import { DERIVED_FILES_INTERVAL_MS, RunStore, type RunCreatedBody } from '../../src/engine/store/runStore';
import { runCreatedBody } from '../helpers/eventBuilder';

const HOSTILE = '<script>alert(1)</script> \u001b[31mred\u001b[0m \u001b]8;;http://evil\u0007link\u001b]8;;\u0007 ![x](http://evil/p.png) & done\u0007';

/** The run_created of a two-task run (a fresh object each time: tests edit it). */
const runCreated = (): RunCreatedBody =>
  runCreatedBody(
    {
      goal: 'Add rate limiting',
      rationale: 'the limiter first, then the middleware that uses it',
      tasks: [
        { id: 'a', title: 'Token bucket', description: 'bucket', acceptance: ['tests'], dependsOn: [] },
        { id: 'b', title: 'Middleware', description: 'mw', acceptance: [], dependsOn: ['a'] },
      ],
    },
    { baseCommit: 'c0ffee'.padEnd(40, '0') },
  );

/** Legal events for a two-task run; task transitions follow the state machine like the engine does. */
class Script {
  readonly events: RunEvent[] = [];
  private readonly states = new Map<string, TaskState>([
    ['a', 'PENDING'],
    ['b', 'PENDING'],
  ]);

  constructor() {
    this.add(runCreated());
  }

  add(body: RunEventBody): this {
    const seq = this.events.length + 1;
    this.events.push({ ...body, seq, runId: 'run-1', at: new Date(Date.UTC(2026, 0, 1, 10, 0, seq)).toISOString(), v: EVENT_SCHEMA_VERSION } as RunEvent);
    return this;
  }

  move(taskId: string, ...events: TaskEvent[]): this {
    for (const event of events) {
      const from = this.states.get(taskId)!;
      const to = TaskStateMachine.next(from, event, taskId);
      this.states.set(taskId, to);
      this.add({ type: 'task_transition', taskId, event, from, to, reason: `${event.toLowerCase()} (test)` });
    }
    return this;
  }

  gate(taskId: string | null, attempt: number, exitCode: number): this {
    return this.add({
      type: 'gate_result',
      taskId,
      attempt,
      passed: exitCode === 0,
      commands: [{ command: 'npm test', exitCode, timedOut: false, durationMs: 900, output: exitCode ? '1 failing' : 'ok' }],
    });
  }

  usage(role: 'planner' | 'actor' | 'critic', taskId: string | null, tokens: number, costUsd: number): this {
    const usage = { inputTokens: tokens, outputTokens: tokens / 2, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd };
    return this.add({ type: 'runner_call', taskId, role, agent: 'scripted', model: 'm', status: 'ok', usage, durationMs: 10, quotaHit: false });
  }
}

function fullRun(findings: CriticFinding[]): RunState {
  const s = new Script()
    .usage('planner', null, 1000, 0.01)
    .add({ type: 'plan_approved', by: 'human' })
    .move('a', 'BUILD_STARTED')
    .usage('actor', 'a', 2000, 0.02)
    .move('a', 'BUILD_FINISHED')
    .gate('a', 1, 1)
    .move('a', 'MECHANICAL_FAILED', 'RETRY_BUILD', 'BUILD_FINISHED')
    .gate('a', 2, 0)
    .move('a', 'MECHANICAL_PASSED')
    .usage('critic', 'a', 500, 0.005)
    .add({
      type: 'critic_verdict',
      taskId: 'a',
      review: 1,
      verdict: { decision: 'changes_required', summary: 'bucket never refills', findings },
      blocking: 1,
    })
    .move('a', 'CRITIC_CHANGES_REQUIRED', 'RETRY_BUILD', 'BUILD_FINISHED')
    .gate('a', 3, 0)
    .move('a', 'MECHANICAL_PASSED')
    .add({ type: 'critic_verdict', taskId: 'a', review: 2, verdict: { decision: 'green', summary: 'looks right', findings: [] }, blocking: 0 })
    .move('a', 'CRITIC_GREEN')
    .move('b', 'BUILD_STARTED', 'BUILD_FINISHED')
    .gate('b', 1, 0)
    .move('b', 'MECHANICAL_PASSED', 'MALFORMED_GIVEUP')
    .add({ type: 'human_decision', taskId: 'b', action: 'accept', note: 'reviewed it myself' })
    .move('b', 'HUMAN_ACCEPTED')
    .add({ type: 'integration_prepared', branch: 'taskloom/run-1/integration', path: '/wt/integration' })
    .add({ type: 'merge_queued', taskId: 'a', commit: 'a1'.repeat(20) })
    .move('a', 'MERGE_STARTED')
    .gate(null, 1, 0)
    .add({ type: 'merge_done', taskId: 'a', commit: 'abcdef1234567890', alreadyMerged: false })
    .move('a', 'MERGE_VERIFIED')
    .add({ type: 'merge_queued', taskId: 'b', commit: 'b1'.repeat(20) })
    .move('b', 'MERGE_STARTED')
    .add({ type: 'merge_conflict', taskId: 'b', files: ['src/server.ts', 'src/limits.ts'] })
    .move('b', 'MERGE_CONFLICTED')
    .add({ type: 'run_paused', reason: 'quota reached for the actor' })
    .add({ type: 'run_resumed', reason: 'resumed by the user' })
    .move('b', 'RESOLVE_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN')
    .add({ type: 'merge_queued', taskId: 'b', commit: 'b2'.repeat(20) })
    .move('b', 'MERGE_STARTED')
    .gate(null, 2, 0)
    .add({ type: 'merge_done', taskId: 'b', commit: '1234567890abcdef', alreadyMerged: false })
    .move('b', 'MERGE_VERIFIED')
    .add({ type: 'run_finished', status: 'completed', summary: '2 of 2 tasks merged' });
  return foldEvents(s.events)!;
}

const FINDING: CriticFinding = { file: 'src/bucket.ts', line: 12, severity: 'blocker', category: 'correctness', message: 'refill() is never called' };

describe('DECISIONS.md', () => {
  const md = renderDecisionsMarkdown(fullRun([FINDING]));
  const section = (title: string): string => {
    const start = md.indexOf(`\n## ${title}`);
    assert.ok(start >= 0, `no section ${title}`);
    const end = md.indexOf('\n## ', start + 1);
    return md.slice(start, end < 0 ? undefined : end);
  };

  it('opens with the goal, the run id and the status', () => {
    assert.match(md, /^# Taskloom decisions: Add rate limiting\n/);
    assert.match(md, /Run `run-1` · status \*\*completed\*\* · base `c0ffee0000` \(main\)/);
    assert.match(md, /> \*\*Finished \(completed\):\*\* 2 of 2 tasks merged/);
  });

  it('shows the plan as a table with dependencies, and its rationale', () => {
    const plan = section('Plan');
    assert.match(plan, /the limiter first, then the middleware that uses it/);
    assert.match(plan, /\| Task \| Title \| Depends on \| State \| Builds \| Last reason \|/);
    assert.match(plan, /\| `a` \| Token bucket \| — \| MERGED \| 3 \|/);
    assert.match(plan, /\| `b` \| Middleware \| `a` \| MERGED \| 2 \|/);
    assert.match(plan, /The plan was approved\./);
  });

  it('lists each task’s gate results, critic verdicts with findings, and human decisions in order', () => {
    const a = section('Task `a`: Token bucket');
    const failed = a.indexOf('Gate failed: \\`npm test\\` exited 1 on attempt 1');
    const review = a.indexOf('Critic review 1: changes required — bucket never refills');
    const finding = a.indexOf('  - \\[blocker/correctness\\] src/bucket.ts:12: refill() is never called');
    const green = a.indexOf('Critic review 2: green — looks right');
    assert.ok(failed > 0 && review > failed && finding > review && green > finding, a);
    assert.match(a, /State \*\*MERGED\*\*/);

    const b = section('Task `b`: Middleware');
    assert.match(b, /- 10:00:\d\d · Human chose to accept "b": reviewed it myself/);
    assert.match(b, /State \*\*MERGED\*\*: merge_verified \(test\)/);
  });

  it('puts merges, conflicts and the integration gate under Integration', () => {
    const integration = section('Integration');
    assert.match(integration, /Branch `taskloom\/run-1\/integration`/);
    assert.match(integration, /"a" merged as abcdef1234 into taskloom\/run-1\/integration/);
    assert.match(integration, /Merging "b" conflicts in src\/server.ts, src\/limits.ts/);
    assert.match(integration, /Integration gate passed \(npm test\)/);
    assert.ok(integration.indexOf('conflicts in') < integration.indexOf('"b" merged'));
  });

  it('records the run pausing, resuming and finishing', () => {
    const run = section('Run');
    assert.match(run, /Plan approved by human/);
    assert.match(run, /Run paused: quota reached for the actor/);
    assert.match(run, /Run resumed: resumed by the user/);
    assert.match(run, /Run completed: 2 of 2 tasks merged/);
  });

  it('ends with a usage table by role and in total', () => {
    const usage = section('Usage');
    assert.match(usage, /\| planner \| 1,000 \| 500 \| 0 \| 0 \| 1,500 \| \$0\.0100 \|/);
    assert.match(usage, /\| actor \| 2,000 \| 1,000 \| 0 \| 0 \| 3,000 \| \$0\.0200 \|/);
    assert.match(usage, /\| critic \| 500 \| 250 \| 0 \| 0 \| 750 \| \$0\.0050 \|/);
    assert.match(usage, /\| \*\*Total\*\* \| 3,500 \| 1,750 \| 0 \| 0 \| 5,250 \| \$0\.0350 \|/);
    assert.match(usage, /3 agent calls\./);
  });

  it('renders hostile agent text inert: no HTML, no escape sequences, no links or images', () => {
    const hostile = renderDecisionsMarkdown(
      fullRun([{ ...FINDING, file: 'src/<img src=x onerror=alert(1)>.ts', message: `${HOSTILE}\n# not a heading\n| not | a row |` }]),
    );
    assert.doesNotMatch(hostile, /<script|<img/i);
    assert.doesNotMatch(hostile, /[\u0000-\u0008\u000b-\u001f\u007f]/, 'no control characters or ANSI escapes');
    assert.doesNotMatch(hostile, /!\[x\]\(/, 'no image syntax');
    assert.doesNotMatch(hostile, /^# not a heading/m);
    assert.doesNotMatch(hostile, /^\| not/m);
    assert.match(hostile, /&lt;script&gt;alert\(1\)&lt;\/script&gt; red link !\\\[x\\\]\(http:\/\/evil\/p.png\) &amp; done # not a heading \\\| not \\\| a row \\\|/);
    assert.match(hostile, /src\/&lt;img src=x onerror=alert\(1\)&gt;\.ts:12/);
  });

  it('escapes the goal, titles and ids the planner chose', () => {
    const s = new Script();
    const created = s.events[0] as Extract<RunEvent, { type: 'run_created' }>;
    created.goal = 'Fix <b>it</b>';
    created.plan.tasks[0]!.title = 'Title | with <i>pipe</i>';
    created.plan.tasks[0]!.id = 'a`b';
    created.plan.tasks[1]!.dependsOn = ['a`b'];
    const md = renderDecisionsMarkdown(foldEvents(s.events)!);
    assert.doesNotMatch(md, /<b>|<i>/);
    assert.match(md, /^# Taskloom decisions: Fix &lt;b&gt;it&lt;\/b&gt;/);
    assert.match(md, /\| a\\`b \| Title \\\| with &lt;i&gt;pipe&lt;\/i&gt; \| — \| PENDING \|/);
  });
});

describe('run.json', () => {
  it('summarises status, tasks, integration and usage', () => {
    const json = renderRunJson(fullRun([FINDING]));
    assert.equal(json.runId, 'run-1');
    assert.equal(json.status, 'completed');
    assert.equal(json.baseRef, 'main');
    assert.equal(json.finishedSummary, '2 of 2 tasks merged');
    assert.equal(json.pausedReason, null);
    assert.deepEqual(
      json.tasks.map((t) => [t.id, t.state, t.builds, t.gateFailures, t.reviewCycles, t.acceptedByHuman]),
      [
        ['a', 'MERGED', 3, 1, 1, false],
        ['b', 'MERGED', 2, 0, 0, true],
      ],
    );
    assert.equal(json.tasks[0]!.usage.costUsd, 0.025);
    assert.deepEqual(json.integration, { branch: 'taskloom/run-1/integration', merged: ['a', 'b'], conflicts: [], gatePassed: true });
    assert.equal(json.usage.calls, 3);
    assert.equal(json.usage.total.costUsd, 0.035);
    assert.equal(json.lastSeq, fullRun([FINDING]).lastSeq);
    assert.doesNotThrow(() => JSON.stringify(json));
  });
});

describe('run.json and DECISIONS.md beside a busy run', () => {
  const call: RunEventBody = { type: 'runner_call', taskId: 'a', role: 'actor', agent: 'scripted', model: 'm', status: 'ok', usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 }, durationMs: 10, quotaHit: false };

  /** A store on a temp folder whose throttle runs on a clock the test steps, with Node's mock timers in step. */
  function steppedStore(t: TestContext) {
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'taskloom-derived-'));
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let clock = 0;
    const { store } = RunStore.open(repo, { command: 'taskloom test', now: () => clock });
    t.after(() => {
      store.close();
      fs.rmSync(repo, { recursive: true, force: true });
    });
    const dir = path.join(repo, '.taskloom', 'runs', 'run-1');
    return {
      store,
      elapse: (ms: number) => {
        clock += ms;
        t.mock.timers.tick(ms);
      },
      now: () => clock,
      runJson: () => JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8')) as { lastSeq: number; status: string },
      decisions: () => fs.readFileSync(path.join(dir, 'DECISIONS.md'), 'utf8'),
    };
  }

  it(`follow a burst of events once every ${DERIVED_FILES_INTERVAL_MS} ms, and catch up with its last events after it`, (t) => {
    const s = steppedStore(t);
    s.store.createRun('run-1', runCreated());
    // An event every 10 ms for a second; what run.json says is read after each step.
    const seen: [number, number][] = [[0, s.runJson().lastSeq]];
    const note = () => {
      const lastSeq = s.runJson().lastSeq;
      if (lastSeq !== seen[seen.length - 1]![1]) seen.push([s.now(), lastSeq]);
    };
    for (let i = 0; i < 100; i += 1) {
      s.store.append('run-1', call);
      s.elapse(10);
      note();
    }
    s.elapse(DERIVED_FILES_INTERVAL_MS - 100 - 1);
    note();
    assert.equal(seen[seen.length - 1]![1], 91, 'the last events are not written before the interval is up');
    s.elapse(1);
    note();
    // Each rewrite holds every event appended before it: seq 1 is run_created, then one call per 10 ms.
    assert.deepEqual(seen, [
      [0, 1],
      [300, 31],
      [600, 61],
      [900, 91],
      [1200, 101],
    ]);
    assert.match(s.decisions(), /100 agent calls\./);
  });

  it('say at once that the run paused or finished, inside the interval', (t) => {
    const s = steppedStore(t);
    s.store.createRun('run-1', runCreated());
    s.store.append('run-1', call);
    s.elapse(10);
    assert.equal(s.runJson().lastSeq, 1, 'a plain event waits for the interval');
    s.store.append('run-1', { type: 'run_paused', reason: 'quota reached' });
    assert.deepEqual([s.runJson().lastSeq, s.runJson().status], [3, 'paused']);
    assert.match(s.decisions(), /Run paused: quota reached/);
    s.store.append('run-1', { type: 'run_resumed', reason: 'back' });
    s.store.append('run-1', { type: 'run_finished', status: 'completed', summary: 'all merged' });
    assert.equal(s.runJson().status, 'completed');
    assert.match(s.decisions(), /Run completed: all merged/);
  });
});
