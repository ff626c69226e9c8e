import * as z from 'zod';
import type { RunEvent } from '../domain/events';
import { applyEvent } from '../domain/projection';
import { PROJECTION_VERSION, type RunState } from '../domain/runState';
import { EventLog, type ReadResult } from './eventLog';
import type { RunSnapshot } from './stateDb';

export interface LoadedRun {
  state: RunState;
  warnings: string[];
  /** False when there was no snapshot or it was discarded and the whole log replayed. */
  fromSnapshot: boolean;
  /** The snapshot given was discarded, or its `logBytes` did not fit the log: it should be replaced. */
  snapshotRejected: boolean;
  /** Bytes of the log that `state` covers (the end of its last event's line): a snapshot of it records this. */
  logBytes: number;
}

/** An event that the projection refused while replaying onto a snapshot. */
class ReplayFailure {
  constructor(readonly error: Error) {}
}

/**
 * A run's state from its log: the snapshot plus the events after it, or the whole log.
 * A snapshot with `logBytes` has only the bytes after that offset read (when the offset fits
 * the log; otherwise the log is scanned for its seq, with a warning). A snapshot that does
 * not fit the log (ahead of it, for another run, or failing to replay) is discarded with a
 * warning: the log is the record, the snapshot only a shortcut. A corrupt log
 * (CorruptLogError) is not something a snapshot can paper over, so it throws.
 *
 * The snapshot's state is replayed onto in place, so it must be the caller's to give (one
 * taken from StateDb is); events are applied as they are read and no copy of the log is kept.
 */
export function loadRunState(eventsFile: string, runId: string, snapshot?: RunSnapshot): LoadedRun {
  const warnings: string[] = [];
  // A snapshot another release's projection made is not a shortcut to this one's state: rebuild quietly.
  if (snapshot && (snapshot.state as Partial<RunState> | undefined)?.projectionVersion !== PROJECTION_VERSION) {
    return { ...replayWholeLog(eventsFile, runId, warnings), snapshotRejected: true };
  }
  if (snapshot) {
    let problem = snapshotProblem(snapshot, runId);
    if (problem === undefined) {
      let state = snapshot.state;
      const onEvent = (event: RunEvent): void => {
        try {
          state = applyEvent(state, event);
        } catch (error) {
          throw new ReplayFailure(error as Error);
        }
      };
      try {
        let tail: ReadResult | undefined;
        let offsetProblem: string | undefined;
        if (snapshot.logBytes !== undefined) {
          tail = EventLog.read(eventsFile, { afterSeq: snapshot.seq, fromOffset: snapshot.logBytes, onEvent });
          offsetProblem = tail.mismatch;
          if (offsetProblem !== undefined) tail = undefined;
        }
        // Nothing was applied when the offset did not fit, so the scan starts from the snapshot as it was.
        tail ??= EventLog.read(eventsFile, { afterSeq: snapshot.seq, onEvent });
        if (tail.lastSeq < snapshot.seq) {
          problem = `it covers seq ${snapshot.seq} but the log ends at seq ${tail.lastSeq}`;
        } else {
          if (offsetProblem !== undefined) {
            warnings.push(
              `Run ${runId}: the snapshot in state.json says seq ${snapshot.seq} ends at byte ${snapshot.logBytes} of the log, but ${offsetProblem}; ` +
                'the whole log was scanned for that seq instead',
            );
          }
          warnings.push(...tail.warnings);
          return { state, warnings, fromSnapshot: true, snapshotRejected: offsetProblem !== undefined, logBytes: tail.endOffset };
        }
      } catch (error) {
        if (!(error instanceof ReplayFailure)) throw error;
        problem = `the events after it do not apply to it: ${error.error.message}`;
      }
    }
    warnings.push(`Run ${runId}: discarded its snapshot in state.json (${problem}) and rebuilt the run from its whole event log`);
  }
  return { ...replayWholeLog(eventsFile, runId, warnings), snapshotRejected: snapshot !== undefined };
}

function replayWholeLog(eventsFile: string, runId: string, warnings: string[]): Omit<LoadedRun, 'snapshotRejected'> {
  let state: RunState | undefined;
  const full = EventLog.read(eventsFile, {
    onEvent: (event) => {
      state = applyEvent(state, event);
    },
  });
  warnings.push(...full.warnings);
  if (!state) throw new Error(`${eventsFile} holds no events`);
  if (state.runId !== runId) throw new Error(`${eventsFile} is the log of run ${state.runId}, not ${runId}`);
  return { state, warnings, fromSnapshot: false, logBytes: full.endOffset };
}

/**
 * Enough of a state's shape that a replay onto it either works or throws, not builds nonsense.
 * Only a snapshot of this release's projection (PROJECTION_VERSION) gets here; its values are
 * the projection's own, and a replay that trips on one discards the snapshot.
 */
const snapshotStateSchema = z.object({
  runId: z.string(),
  lastSeq: z.number(),
  tasks: z.record(z.string(), z.looseObject({})),
  taskOrder: z.array(z.string()),
  decisions: z.array(z.unknown()),
  warnings: z.array(z.unknown()),
  usage: z.looseObject({}),
  integration: z.looseObject({}),
  plan: z.looseObject({}),
});

function snapshotProblem(snapshot: RunSnapshot, runId: string): string | undefined {
  const parsed = snapshotStateSchema.safeParse(snapshot.state);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return `its state is not well formed (${issue.path.join('.') || 'state'}: ${issue.message})`;
  }
  const s = parsed.data;
  if (s.runId !== runId) return `it is a state of run ${s.runId}`;
  if (s.lastSeq !== snapshot.seq) return `its state is at seq ${s.lastSeq}, not ${snapshot.seq}`;
  const missing = s.taskOrder.find((id) => !Object.hasOwn(s.tasks, id));
  return missing === undefined ? undefined : `its state is not well formed (task ${missing} is in taskOrder but not in tasks)`;
}
