import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import type { RunEvent, RunEventBody } from '../../src/engine/domain/events';
import { foldEvents } from '../../src/engine/domain/projection';
import { relativeToCwd, TranscriptRecorder, transcriptLine, type TranscriptLimits } from '../../src/engine/session/transcriptRecorder';
import { EventLog } from '../../src/engine/store/eventLog';
import { describeToolUse } from '../../src/engine/agents/claude/claudeStreamParser';
import { unwrapShell } from '../../src/engine/agents/codex/codexEventParser';
import { firstPage, historiesOf, addHistories } from '../../src/protocol/runViewPages';
import { latestKey, lineClock, TranscriptLines, transcriptGroups } from '../../src/webview/runView/transcriptModel';
import { callWords } from '../../src/engine/text/callWords';
import { EventBuilder } from '../helpers/eventBuilder';

type Transcript = Extract<RunEventBody, { type: 'agent_transcript' }>;

/** A recorder whose events go to a list, with seqs counted from `firstSeq`. */
function recorder(limits: Partial<TranscriptLimits>, cwd = '/w/run/task') {
  const written: Array<Transcript & { seq: number }> = [];
  let seq = 100;
  const emit = (body: RunEventBody): RunEvent => {
    seq += 1;
    written.push({ ...(body as Transcript), seq });
    return { ...body, seq, runId: 'r', at: new Date().toISOString() } as RunEvent;
  };
  const rec = new TranscriptRecorder(emit, { taskId: 'a', role: 'actor', attempt: 2, cwd }, { limits });
  return { rec, written, lines: () => written.flatMap((w) => w.lines) };
}

const FAST = { flushMs: 40, repeatFlushMs: 200, sampleMinMs: 60, sampleMaxMs: 60 };

describe('transcript recorder', () => {
  // The recorder's clock and timers are Node's mock ones: each step is an exact tick, not a sleep racing its throttle.
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'] }));
  afterEach(() => mock.timers.reset());

  it('writes the first line at once, then coalesces a burst into one batch a flush interval later', () => {
    const { rec, written } = recorder(FAST);
    rec.add({ kind: 'status', message: 'claude started' });
    assert.equal(written.length, 1, 'the first line does not wait');
    assert.deepEqual(written[0]!.lines.map((l) => l.text), ['claude started']);
    assert.equal(written[0]!.role, 'actor');
    assert.equal(written[0]!.attempt, 2);
    assert.equal(written[0]!.call, undefined, 'the first batch is the call');
    for (let i = 0; i < 20; i++) rec.add({ kind: 'tool', message: `Read src/f${i}.ts` });
    assert.equal(written.length, 1, 'a burst waits for the interval');
    mock.timers.tick(80);
    assert.equal(written.length, 2);
    assert.equal(written[1]!.lines.length, 20);
    assert.equal(written[1]!.call, 101, 'later batches name the call by its first seq');
    assert.equal(rec.finish(), 101);
  });

  it('counts a line that repeats instead of writing it again, and holds back a batch of mere repeats', () => {
    const { rec, written, lines } = recorder(FAST);
    rec.add({ kind: 'status', message: 'working…' });
    for (let i = 0; i < 9; i++) rec.add({ kind: 'status', message: 'working…' });
    mock.timers.tick(80);
    assert.equal(written.length, 1, 'heartbeats wait for the longer interval');
    rec.add({ kind: 'text', message: 'done thinking' });
    mock.timers.tick(80);
    rec.finish();
    assert.deepEqual(
      lines().map((l) => [l.text, l.n ?? 1]),
      [
        ['working…', 1],
        ['working…', 9],
        ['done thinking', 1],
      ],
    );
  });

  it('keeps the head, samples the middle, and writes the tail at the end: bounded, with what it left out counted', () => {
    const { rec, written, lines } = recorder({ ...FAST, headLines: 10, tailLines: 5, maxSamples: 2 });
    for (let i = 1; i <= 10; i++) rec.add({ kind: 'text', message: `line ${i}` });
    mock.timers.tick(50);
    for (let i = 11; i <= 300; i++) {
      rec.add({ kind: 'text', message: `line ${i}` });
      if (i % 50 === 0) mock.timers.tick(70);
    }
    rec.finish();
    const texts = lines().map((l) => l.text);
    assert.deepEqual(texts.slice(0, 10), Array.from({ length: 10 }, (_, i) => `line ${i + 1}`), 'the head whole');
    assert.deepEqual(texts.slice(-5), ['line 296', 'line 297', 'line 298', 'line 299', 'line 300'], 'the tail');
    assert.equal(texts.length, 10 + 2 + 5, 'head, two samples, tail');
    const omitted = written.reduce((sum, w) => sum + (w.omitted ?? 0), 0);
    assert.equal(omitted + texts.length, 300, 'every line is either kept or counted');
    assert.ok(written.length <= 6, `few events (${written.length})`);
  });

  it('keeps an hour of a line every 100 ms to about a hundred events and under 100 KiB', () => {
    try {
      let bytes = 0;
      let events = 0;
      const rec = new TranscriptRecorder(
        (body) => {
          events += 1;
          const event = { seq: events, runId: '20261201-190338-928e', at: new Date().toISOString(), v: 3, ...body } as RunEvent;
          bytes += JSON.stringify(event).length + 1;
          return event;
        },
        { taskId: 'some-task', role: 'actor', attempt: 1, cwd: '/w' },
      );
      for (let i = 0; i < 36_000; i++) {
        rec.add({ kind: 'text', message: `line ${i}: ${'x'.repeat(400)}` });
        mock.timers.tick(100);
      }
      rec.finish();
      assert.ok(events <= 130, `${events} events`);
      assert.ok(bytes < 100 * 1024, `${bytes} bytes`);
    } finally {
      mock.timers.reset();
    }
  });

  it('makes paths under the worktree relative and cuts long lines', () => {
    assert.equal(relativeToCwd('Write /w/run/task/src/a.ts and /w/run/task', '/w/run/task'), 'Write src/a.ts and .');
    assert.equal(relativeToCwd('Write /other/src/a.ts', '/w/run/task'), 'Write /other/src/a.ts');
    const line = transcriptLine({ kind: 'text', message: `a\n  b ${'x'.repeat(500)}` }, undefined, 1234.4, 50);
    assert.equal(line.text.length, 50);
    assert.match(line.text, /^a b x+…$/);
    assert.equal(line.ms, 1234);
  });

  it('writes nothing for a call that printed nothing, and stops quietly when the log refuses a batch', () => {
    const silent = recorder(FAST);
    assert.equal(silent.rec.finish(), undefined);
    assert.equal(silent.written.length, 0);
    const refusing = new TranscriptRecorder(
      () => {
        throw new Error('ENOSPC');
      },
      { taskId: 'a', role: 'actor', attempt: 1, cwd: '/w' },
    );
    refusing.add({ kind: 'text', message: 'hello' });
    refusing.add({ kind: 'text', message: 'again' });
    assert.equal(refusing.finish(), undefined);
  });
});

describe('agent activity as transcript lines', () => {
  it('names a Claude tool call by what it works on', () => {
    assert.equal(describeToolUse('Edit', { file_path: '/w/src/a.ts', old_string: 'x', new_string: 'y' }), 'Edit /w/src/a.ts');
    assert.equal(describeToolUse('Bash', { command: 'npm test\n  -- --watch=false' }), 'Bash: npm test -- --watch=false');
    assert.equal(
      describeToolUse('TodoWrite', { todos: [{ content: 'read', status: 'completed' }, { content: 'write the test', status: 'in_progress' }, { content: 'ship', status: 'pending' }] }),
      'TodoWrite: 1/3 done — now: write the test',
    );
    assert.equal(describeToolUse('Task', { description: 'Find the parser', prompt: 'long…' }), 'Task: Find the parser');
    assert.equal(describeToolUse('WebFetch', { url: 'https://example.com/doc', prompt: 'summarise' }), 'WebFetch: https://example.com/doc');
    assert.equal(describeToolUse('Mystery', {}), 'Mystery');
  });

  it('shows a Codex command without the shell it is wrapped in', () => {
    assert.equal(unwrapShell('/bin/bash -lc ls'), 'ls');
    assert.equal(unwrapShell("/bin/bash -lc 'npm test -- --grep \"a b\"'"), 'npm test -- --grep "a b"');
    assert.equal(unwrapShell("bash -c 'echo '\\''hi'\\'''"), "echo 'hi'");
    assert.equal(unwrapShell('npm test'), 'npm test');
  });
});

/** A log with one actor call's transcript (three batches) ended by its runner_call. */
function transcriptLog() {
  const b = new EventBuilder();
  b.move('a', 'BUILD_STARTED');
  const first = b.add({ type: 'agent_transcript', taskId: 'a', role: 'actor', attempt: 1, lines: [{ kind: 'status', text: 'started', ms: 5 }] });
  b.add({ type: 'agent_transcript', taskId: 'a', call: first.seq, lines: [{ kind: 'status', text: 'working…', ms: 200 }] });
  b.add({ type: 'agent_transcript', taskId: 'a', call: first.seq, omitted: 3, lines: [{ kind: 'status', text: 'working…', ms: 900, n: 2 }] });
  return { b, first };
}

describe('transcripts in the projection', () => {
  it('keeps a record per call (its batches, counts, newest line), closed by its runner_call', () => {
    const { b, first } = transcriptLog();
    let record = foldEvents(b.events)!.tasks.a!.transcripts[0]!;
    assert.equal(record.seq, first.seq);
    assert.equal(record.attemptIndex, 0);
    assert.deepEqual(record.batches, [first.seq, first.seq + 1, first.seq + 2]);
    assert.equal(record.lines, 3);
    assert.equal(record.omitted, 3);
    assert.deepEqual(record.last, { kind: 'status', text: 'working…', ms: 900, n: 3 }, 'repeats add up');
    assert.equal(record.ended, undefined);
    const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
    b.add({ type: 'runner_call', taskId: 'a', role: 'actor', agent: 'scripted', model: 'm', status: 'ok', usage, durationMs: 950, quotaHit: false, transcript: first.seq });
    const state = foldEvents(b.events)!;
    record = state.tasks.a!.transcripts[0]!;
    assert.equal(record.ended, 'ok');
    assert.equal(state.tasks.a!.calls[0]!.transcript, first.seq);
  });

  it('marks a call a dead process left open as interrupted when the run resumes', () => {
    const { b } = transcriptLog();
    b.add({ type: 'run_resumed', reason: 'resume' });
    assert.equal(foldEvents(b.events)!.tasks.a!.transcripts[0]!.ended, 'interrupted');
  });

  it('keeps planning calls on the run, outside any task', () => {
    const b = new EventBuilder();
    b.add({ type: 'agent_transcript', taskId: null, role: 'planner', attempt: 1, lines: [{ kind: 'text', text: 'reading the repo', ms: 10 }] });
    const state = foldEvents(b.events)!;
    assert.equal(state.transcripts.length, 1);
    assert.equal(state.transcripts[0]!.attemptIndex, undefined);
    assert.equal(callWords(state.transcripts[0]!, true), 'planner · draft 1');
  });
});

describe('a transcript read from the log by seq', () => {
  it('parses only the wanted lines and stops after the last of them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'taskloom-seqs-'));
    try {
      const { b, first } = transcriptLog();
      const file = join(dir, 'events.jsonl');
      const { log } = EventLog.open(file);
      for (const e of b.events) log.append(e);
      log.close();
      const read = EventLog.read(file, { seqs: new Set([first.seq, first.seq + 2]) });
      assert.deepEqual(read.events.map((e) => e.seq), [first.seq, first.seq + 2]);
      assert.equal(read.lastSeq, first.seq + 2, 'the read ended at the last wanted event');
      assert.deepEqual(EventLog.read(file, { seqs: new Set() }).events, []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the run view first page and its transcript lines', () => {
  it('leaves histories and older decisions out, and takes them back to the same state', () => {
    const { b } = transcriptLog();
    const full = foldEvents(b.events)!;
    const { state: page, omitted } = firstPage(full);
    assert.deepEqual(page.tasks.a!.transitions, []);
    assert.deepEqual(page.tasks.a!.transcripts, []);
    assert.equal(omitted.histories, true);
    assert.equal(omitted.decisions, 0, 'a short run keeps every decision');
    assert.ok(full.tasks.a!.transitions.length > 0, 'the state itself is not changed');
    const copy = structuredClone(page);
    addHistories(copy, structuredClone(historiesOf(full)));
    assert.deepEqual(copy.tasks.a!.transcripts, full.tasks.a!.transcripts);
    assert.deepEqual(copy.tasks.a!.attempts, full.tasks.a!.attempts);
  });

  it('merges batches from answers and events once each, in order, runs of one line counted', () => {
    const { b, first } = transcriptLog();
    const lines = new TranscriptLines();
    assert.deepEqual(lines.ask([first.seq]), [first.seq]);
    assert.deepEqual(lines.ask([first.seq]), [], 'asked once');
    // The event with the third batch comes before the answer, which has the first two.
    assert.equal(lines.noteEvents([b.events.at(-1)!]), true);
    lines.receive([{ seq: first.seq, batches: [0, 1].map((i) => { const e = b.events.at(-3 + i) as Extract<RunEvent, { type: 'agent_transcript' }>; return { seq: e.seq, lines: e.lines }; }) }]);
    lines.noteEvents(b.events.slice(-2));
    assert.deepEqual(lines.shown(first.seq), [
      { kind: 'line', line: { kind: 'status', text: 'started', ms: 5 } },
      { kind: 'line', line: { kind: 'status', text: 'working…', ms: 200 } },
      { kind: 'omitted', count: 3 },
      { kind: 'line', line: { kind: 'status', text: 'working…', ms: 900, n: 2 } },
    ]);
    assert.ok(lines.loaded(first.seq));
  });

  it('groups a task’s calls by attempt, newest first, and follows the agent that printed last', () => {
    const b = new EventBuilder();
    b.move('a', 'BUILD_STARTED');
    b.add({ type: 'agent_transcript', taskId: 'a', role: 'actor', attempt: 1, lines: [{ kind: 'text', text: 'one', ms: 1 }] });
    b.move('a', 'BUILD_FINISHED', 'MECHANICAL_FAILED', 'RETRY_BUILD');
    b.add({ type: 'agent_transcript', taskId: 'a', role: 'actor', attempt: 2, lines: [{ kind: 'text', text: 'two', ms: 1 }] });
    b.move('b', 'BUILD_STARTED');
    const state = foldEvents(b.events)!;
    const groups = transcriptGroups(state.tasks.a!.transcripts, state.tasks.a!.attempts);
    assert.deepEqual(groups.map((g) => g.title), ['Attempt 2', 'Attempt 1']);
    assert.equal(latestKey(state), 'a');
    assert.equal(lineClock(65_000), '1:05');
    assert.equal(lineClock(3_725_000), '1:02:05');
  });
});
