import type { EventOf, RunEventType } from './events';
import type { RunState } from './runState';

/**
 * How events change a run's state: one handler per event type. The parts of the projection
 * (merge queue, pull requests, transcripts) each handle some types, as
 * `satisfies Partial<ProjectionHandlers>`; projection.ts joins them and handles the rest.
 */
export type ProjectionHandlers<T extends RunEventType = RunEventType> = { [K in T]: (state: RunState, event: EventOf<K>) => void };
