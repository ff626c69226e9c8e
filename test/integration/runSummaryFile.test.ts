import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { RunEventBody } from '../../src/engine/domain/events';
import { RunStore } from '../../src/engine/store/runStore';
import { freshRunSummary, RUN_SUMMARY_VERSION } from '../../src/engine/store/runSummaryFile';
import { runCreatedBody, TWO_TASK_PLAN } from '../helpers/eventBuilder';

const folders: string[] = [];
after(() => folders.forEach((d) => rmSync(d, { recursive: true, force: true })));

const call = (costUsd: number): RunEventBody => ({
  type: 'runner_call',
  taskId: 'a',
  role: 'actor',
  agent: 'scripted',
  model: 'scripted',
  status: 'ok',
  usage: { inputTokens: 10, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd },
  durationMs: 5,
  quotaHit: false,
});

/** A run in a real store that ends once (its summary written then), and the store to go on with. */
function endedRun(): { store: RunStore; paths: ReturnType<RunStore['runPaths']> } {
  const dir = mkdtempSync(join(tmpdir(), 'taskloom-summary-'));
  folders.push(dir);
  const { store } = RunStore.open(dir, { command: 'test', onWarning: () => {} });
  store.createRun('run-1', runCreatedBody(TWO_TASK_PLAN));
  store.append('run-1', { type: 'plan_approved', by: 'human' });
  store.append('run-1', call(0.5));
  store.append('run-1', { type: 'run_finished', status: 'needs_human', summary: 'stopped' });
  return { store, paths: store.runPaths('run-1') };
}

describe('the run summary behind taskloom stats', () => {
  it('is written when a run ends, and read as it is while the log stays the same', () => {
    const { store, paths } = endedRun();
    store.close();
    assert.ok(existsSync(paths.summary), 'written at run_finished');
    const first = freshRunSummary(paths, 'run-1');
    assert.equal(first.refresh, 'kept');
    assert.equal(first.summary.calls.byRole.actor!.usage.costUsd, 0.5);
    assert.equal(first.summary.endStatus, 'needs_human');
  });

  it('folds in what the log gained when the run goes on, and rebuilds one that does not fit', () => {
    const { store, paths } = endedRun();
    store.append('run-1', { type: 'run_resumed', reason: 'again' });
    store.append('run-1', call(0.25));
    store.close();
    const grown = freshRunSummary(paths, 'run-1');
    assert.equal(grown.refresh, 'extended');
    assert.equal(grown.summary.calls.byRole.actor!.usage.costUsd, 0.75);
    assert.equal(grown.summary.calls.byRole.actor!.calls, 2);
    assert.equal(grown.summary.endStatus, undefined, 'resumed: it has not stopped since');
    assert.equal(freshRunSummary(paths, 'run-1').refresh, 'kept', 'the extended summary was written back');

    // A summary of another version, or a damaged one, is folded again from the whole log: the same figures.
    const file = JSON.parse(readFileSync(paths.summary, 'utf8')) as { version: number };
    writeFileSync(paths.summary, JSON.stringify({ ...file, version: RUN_SUMMARY_VERSION + 1 }));
    const rebuilt = freshRunSummary(paths, 'run-1');
    assert.equal(rebuilt.refresh, 'rebuilt');
    assert.deepEqual(rebuilt.summary, grown.summary);
    writeFileSync(paths.summary, '{"version":');
    assert.equal(freshRunSummary(paths, 'run-1').refresh, 'rebuilt');
  });

  it('does not take a half-written last line of the log for an event', () => {
    const { store, paths } = endedRun();
    store.close();
    appendFileSync(paths.events, '{"seq":5,"runId":"run-1","at":"2026-');
    const torn = freshRunSummary(paths, 'run-1');
    assert.equal(torn.summary.lastSeq, 4);
    assert.match(torn.warnings.join('\n'), /torn|incomplete|ignored/i);
  });
});
