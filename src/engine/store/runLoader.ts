import { foldEvents } from '../domain/projection';
import type { RunState } from '../domain/runState';
import { EventLog } from './eventLog';
import type { RunSnapshot } from './stateDb';

export interface LoadedRun {
  state: RunState;
  warnings: string[];
  /** False when there was no snapshot or it was discarded and the whole log replayed. */
  fromSnapshot: boolean;
}

/**
 * A run's state from its log: the snapshot plus the events after it, or the whole log.
 * A snapshot that does not fit the log (ahead of it, for another run, or failing to
 * replay) is discarded with a warning: the log is the record, the snapshot only a shortcut.
 * A corrupt log (CorruptLogError) is not something a snapshot can paper over, so it throws.
 */
export function loadRunState(eventsFile: string, runId: string, snapshot?: RunSnapshot): LoadedRun {
  const warnings: string[] = [];
  if (snapshot) {
    let problem = snapshotProblem(snapshot, runId);
    if (problem === undefined) {
      const tail = EventLog.read(eventsFile, { afterSeq: snapshot.seq });
      if (tail.lastSeq < snapshot.seq) {
        problem = `it covers seq ${snapshot.seq} but the log ends at seq ${tail.lastSeq}`;
      } else {
        try {
          const state = foldEvents(tail.events, snapshot.state)!;
          return { state, warnings: tail.warnings, fromSnapshot: true };
        } catch (error) {
          problem = `the events after it do not apply to it: ${(error as Error).message}`;
        }
      }
    }
    warnings.push(`Run ${runId}: discarded its snapshot in state.json (${problem}) and rebuilt the run from its whole event log`);
  }
  const full = EventLog.read(eventsFile);
  warnings.push(...full.warnings);
  const state = foldEvents(full.events);
  if (!state) throw new Error(`${eventsFile} holds no events`);
  if (state.runId !== runId) throw new Error(`${eventsFile} is the log of run ${state.runId}, not ${runId}`);
  return { state, warnings, fromSnapshot: false };
}

/** Enough of a check that a replay onto the snapshot will either work or throw, not build nonsense. */
function snapshotProblem(snapshot: RunSnapshot, runId: string): string | undefined {
  const s = snapshot.state as Partial<RunState> | undefined;
  if (typeof s !== 'object' || s === null) return 'it holds no state';
  if (s.runId !== runId) return `it is a state of run ${String(s.runId)}`;
  if (s.lastSeq !== snapshot.seq) return `its state is at seq ${String(s.lastSeq)}, not ${snapshot.seq}`;
  const wellFormed =
    typeof s.tasks === 'object' &&
    s.tasks !== null &&
    Array.isArray(s.taskOrder) &&
    s.taskOrder.every((id) => typeof s.tasks![id] === 'object') &&
    Array.isArray(s.decisions) &&
    Array.isArray(s.warnings) &&
    typeof s.usage === 'object' &&
    s.usage !== null &&
    typeof s.integration === 'object' &&
    s.integration !== null &&
    typeof s.plan === 'object' &&
    s.plan !== null;
  return wellFormed ? undefined : 'its state is not well formed';
}
