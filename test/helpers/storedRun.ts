import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunEvent, RunEventBody } from '../../src/engine/domain/events';
import type { RunState } from '../../src/engine/domain/runState';
import { RunStore } from '../../src/engine/store/runStore';
import type { EventBuilder } from './eventBuilder';

/**
 * The events of `b` (a legal stream, its task transitions checked as it was built) written through
 * a real RunStore, then read back from the log by a fresh read-only store: the state every view
 * gets, from events the store's schemas accepted. `each` sees every event as it is appended, with
 * the live state after it (what a session's listeners see).
 */
export function storedRun(b: EventBuilder, each?: (event: RunEvent, state: RunState) => void): RunState {
  const dir = mkdtempSync(join(tmpdir(), 'taskloom-stored-run-'));
  try {
    const { store } = RunStore.open(dir, { command: 'test', onWarning: () => {} });
    const [created, ...rest] = b.events.map(bodyOf);
    const runId = b.runId;
    try {
      store.createRun(runId, created as Extract<RunEventBody, { type: 'run_created' }>);
      for (const body of rest) {
        const event = store.append(runId, body);
        each?.(event, store.loadRun(runId).state);
      }
    } finally {
      store.close();
    }
    const { store: reader } = RunStore.open(dir, { command: 'test', readOnly: true, onWarning: () => {} });
    try {
      return reader.loadRun(runId).state;
    } finally {
      reader.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function bodyOf(event: RunEvent): RunEventBody {
  const { seq: _seq, runId: _runId, at: _at, v: _v, ...body } = event as RunEvent & { v?: number };
  return body as RunEventBody;
}
