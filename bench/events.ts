import { createHash } from 'node:crypto';
import type { RunEvent, RunEventBody } from '../src/engine/domain/events';
import type { Plan } from '../src/engine/domain/plan';
import { applyEvent } from '../src/engine/domain/projection';
import { DEFAULT_RUN_CONFIG } from '../src/engine/domain/runConfig';
import type { RunState } from '../src/engine/domain/runState';

/**
 * A legal, realistic event stream for a long run: `taskCount` tasks stuck in the actor → gate
 * → critic loop (a failed gate, a fix, a passed gate, a critic asking for changes, again), their
 * events interleaved as parallel tasks interleave them. Every event is applied to a live
 * RunState with the real projection as it is made, so the stream is checked to replay, and the
 * state at any point can be taken as a snapshot.
 */

const CYCLE = [
  'actor_call',
  'commit',
  'BUILD_FINISHED',
  'gate_failed',
  'MECHANICAL_FAILED',
  'RETRY_BUILD',
  'actor_call',
  'commit',
  'BUILD_FINISHED',
  'gate_passed',
  'MECHANICAL_PASSED',
  'critic_call',
  'verdict',
  'CRITIC_CHANGES_REQUIRED',
  'RETRY_BUILD',
] as const;

const FAILED_TEST_OUTPUT = [
  '> bench-app@1.0.0 test',
  '> node --test',
  '',
  '✔ slugify lowercases and joins words (0.61ms)',
  '✖ wordCount counts words separated by any whitespace (1.2ms)',
  '  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:',
  '',
  '  3 !== 2',
  '',
  '      at TestContext.<anonymous> (file:///work/app/test/wc.test.js:9:10)',
  '      at Test.runInAsyncScope (node:async_hooks:206:9)',
  'ℹ tests 12',
  'ℹ pass 11',
  'ℹ fail 1',
  'ℹ duration_ms 84.2',
].join('\n');

const PASSED_TEST_OUTPUT = ['> bench-app@1.0.0 test', '> node --test', 'ℹ tests 12', 'ℹ pass 12', 'ℹ fail 0', 'ℹ duration_ms 81.7'].join('\n');

interface Cursor {
  step: number;
  attempt: number;
  review: number;
}

export class EventStream {
  readonly runId: string;
  readonly plan: Plan;
  /** Seq of the last event made. */
  seq = 0;
  state: RunState | undefined;
  private readonly cursors: Cursor[];
  private turn = 0;
  private readonly startMs = Date.UTC(2026, 0, 5, 9, 0, 0);

  constructor(runId: string, taskCount = 20) {
    this.runId = runId;
    this.plan = {
      goal: 'Add rate limiting, audit logging and an admin API to the service',
      rationale: 'Independent slices of the service, each with its own tests.',
      tasks: Array.from({ length: taskCount }, (_, i) => ({
        id: `task-${String(i).padStart(2, '0')}`,
        title: `Slice ${i}: implement and test module ${i}`,
        description: `Implement module ${i} in src/mod${i}.ts with unit tests in test/mod${i}.test.ts.`,
        acceptance: [`module ${i} exported from src/index.ts`, 'npm test passes'],
        dependsOn: [],
        files: [`src/mod${i}.ts`, `test/mod${i}.test.ts`],
      })),
    };
    this.cursors = this.plan.tasks.map(() => ({ step: -2, attempt: 0, review: 0 }));
  }

  /** The next event, with seq/runId/at first in the line as the store writes them, applied to `state`. */
  next(): RunEvent {
    const body = this.makeBody();
    const seq = this.seq + 1;
    const at = new Date(this.startMs + seq * 137).toISOString();
    const event = Object.assign({ seq, runId: this.runId, at }, body) as RunEvent;
    this.state = applyEvent(this.state, event);
    this.seq = seq;
    return event;
  }

  /** The next event as a body, for RunStore.append (which adds seq, runId and at itself). */
  nextBody(): RunEventBody {
    const { seq: _seq, runId: _runId, at: _at, ...body } = this.next();
    return body as RunEventBody;
  }

  /** A copy that continues independently from here (its state is a deep copy). */
  fork(): EventStream {
    const copy = Object.create(EventStream.prototype) as EventStream;
    Object.assign(copy, this, {
      state: structuredClone(this.state),
      cursors: this.cursors.map((c) => ({ ...c })),
    });
    return copy;
  }

  private makeBody(): RunEventBody {
    if (this.seq === 0) {
      return {
        type: 'run_created',
        goal: this.plan.goal,
        plan: this.plan,
        config: { ...DEFAULT_RUN_CONFIG, gateCommands: ['npm test'], agent: { kind: 'scripted', scriptPath: '/dev/null' } },
        repoRoot: '/home/dev/service',
        baseCommit: hash('base'),
        baseRef: 'main',
        ignoredChanges: [],
        createdBy: { host: 'bench-host', pid: 4242 },
      };
    }
    if (this.seq === 1) return { type: 'plan_approved', by: 'autopilot' };

    const index = this.turn++ % this.cursors.length;
    const cursor = this.cursors[index]!;
    const taskId = this.plan.tasks[index]!.id;
    const step = cursor.step++;
    if (step === -2) {
      cursor.attempt = 1;
      return { type: 'task_transition', taskId, event: 'BUILD_STARTED', from: 'PENDING', to: 'BUILDING', reason: 'dependencies are ready' };
    }
    if (step === -1) {
      return {
        type: 'worktree_prepared',
        taskId,
        branch: `taskloom/${this.runId}/${taskId}`,
        path: `/home/dev/service/.git/taskloom/worktrees/${this.runId}/${taskId}`,
        baseCommit: hash('base'),
        fresh: true,
      };
    }
    const kind = CYCLE[step % CYCLE.length]!;
    const attempt = cursor.attempt;
    switch (kind) {
      case 'actor_call':
      case 'critic_call': {
        const role = kind === 'actor_call' ? 'actor' : 'critic';
        return {
          type: 'runner_call',
          taskId,
          role,
          agent: 'claude-code',
          model: 'claude-sonnet-4-5',
          status: 'ok',
          usage: { inputTokens: 18_240 + step, outputTokens: 2_310, cacheReadTokens: 64_000, cacheWriteTokens: 4_096, costUsd: 0.0873 },
          durationMs: 48_210 + step,
          quotaHit: false,
          sessionId: `sess-${taskId}-${role}-${attempt}`,
        };
      }
      case 'commit':
        return {
          type: 'work_committed',
          taskId,
          attempt,
          commit: hash(`${taskId}:${step}`),
          filesChanged: [`src/mod${index}.ts`, `test/mod${index}.test.ts`],
        };
      case 'gate_failed':
      case 'gate_passed': {
        const passed = kind === 'gate_passed';
        return {
          type: 'gate_result',
          taskId,
          attempt,
          passed,
          commands: [
            { command: 'npm test', exitCode: passed ? 0 : 1, timedOut: false, durationMs: 4_210, output: passed ? PASSED_TEST_OUTPUT : FAILED_TEST_OUTPUT },
          ],
        };
      }
      case 'verdict':
        cursor.review += 1;
        return {
          type: 'critic_verdict',
          taskId,
          review: cursor.review,
          blocking: 1,
          verdict: {
            decision: 'changes_required',
            summary: 'The limiter ignores the window boundary; one blocking finding.',
            findings: [
              {
                file: `src/mod${index}.ts`,
                line: 42,
                severity: 'major',
                category: 'correctness',
                message: 'Requests exactly at the window boundary are counted twice; use a half-open interval.',
              },
            ],
          },
        };
      case 'BUILD_FINISHED':
        return { type: 'task_transition', taskId, event: kind, from: 'BUILDING', to: 'GATING', reason: `actor finished attempt ${attempt} (2 file(s) changed)` };
      case 'MECHANICAL_FAILED':
        return { type: 'task_transition', taskId, event: kind, from: 'GATING', to: 'MECHANICAL_FAILED', reason: '`npm test` exited 1' };
      case 'MECHANICAL_PASSED':
        return { type: 'task_transition', taskId, event: kind, from: 'GATING', to: 'CRITIC_REVIEWING', reason: 'gate passed: npm test' };
      case 'CRITIC_CHANGES_REQUIRED':
        return {
          type: 'task_transition',
          taskId,
          event: kind,
          from: 'CRITIC_REVIEWING',
          to: 'CHANGES_REQUIRED',
          reason: 'critic: The limiter ignores the window boundary; one blocking finding. (1 blocking)',
        };
      case 'RETRY_BUILD': {
        const from = step % CYCLE.length === 5 ? 'MECHANICAL_FAILED' : 'CHANGES_REQUIRED';
        cursor.attempt += 1;
        const reason = from === 'MECHANICAL_FAILED' ? 'retrying with the gate output (`npm test` exited 1)' : 'retrying with 1 critic finding(s)';
        return { type: 'task_transition', taskId, event: kind, from, to: 'BUILDING', reason };
      }
    }
  }
}

/** `count` events as JSONL text (each line ends with a newline), as EventLog would have written them. */
export function jsonlOf(stream: EventStream, count: number): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) lines.push(JSON.stringify(stream.next()));
  return lines.length ? `${lines.join('\n')}\n` : '';
}

function hash(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}
