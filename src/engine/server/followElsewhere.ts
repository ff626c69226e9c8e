import { existsSync, readdirSync } from 'node:fs';
import { errorText } from '../domain/taskloomError';
import { EventLog } from '../store/eventLog';
import { isValidRunId, runPaths, taskloomPaths } from '../store/paths';
import type { EventBatcher } from './eventBatcher';

/** How often the logs of a workspace driven by another process are read for new events. */
export const FOLLOW_INTERVAL_MS = 500;

interface LogPosition {
  seq: number;
  offset: number;
}

/**
 * While another process (the CLI, another window) drives a workspace, the editor watches
 * read-only: every FOLLOW_INTERVAL_MS the new complete lines of each run's log are read (a
 * line being written is left for the next round) and sent as ordinary event notifications,
 * so the tree and the run view move as if this server drove the run. Nothing is written.
 * When the other process lets go of the lock, one last read is made and following stops.
 */
export class ElsewhereFollower {
  private readonly positions = new Map<string, LogPosition>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly root: string,
    private readonly folder: string,
    private readonly batcher: EventBatcher,
    private readonly stillElsewhere: () => boolean,
    private readonly log: (message: string) => void,
  ) {}

  get following(): boolean {
    return this.timer !== undefined;
  }

  /** Starts from the logs' current ends: what the editor loaded before comes from getRun. */
  start(): void {
    if (this.timer) return;
    for (const runId of this.runIds()) {
      const { lastSeq, endOffset } = EventLog.read(this.eventsFile(runId), { afterSeq: Number.MAX_SAFE_INTEGER });
      this.positions.set(runId, { seq: lastSeq, offset: endOffset });
    }
    this.timer = setInterval(() => this.tick(), FOLLOW_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Reads what was appended since the last round; stops after the round in which the lock was let go. */
  tick(): void {
    const last = !this.stillElsewhere();
    for (const runId of this.runIds()) {
      try {
        this.readNew(runId);
      } catch (error) {
        this.log(`Following run ${runId} read-only: ${errorText(error as Error)}`);
      }
    }
    if (last) this.stop();
  }

  private readNew(runId: string): void {
    const file = this.eventsFile(runId);
    const at = this.positions.get(runId) ?? { seq: 0, offset: 0 };
    let read = EventLog.read(file, { afterSeq: at.seq, fromOffset: at.offset });
    // The log was replaced or repaired underneath: read past the seq instead of the byte offset.
    if (read.mismatch) read = EventLog.read(file, { afterSeq: at.seq });
    for (const event of read.events) this.batcher.push(this.folder, event);
    this.positions.set(runId, { seq: Math.max(at.seq, read.lastSeq), offset: read.endOffset });
  }

  private runIds(): string[] {
    const runsDir = taskloomPaths(this.root).runsDir;
    if (!existsSync(runsDir)) return [];
    return readdirSync(runsDir).filter((name) => isValidRunId(name) && existsSync(this.eventsFile(name)));
  }

  private eventsFile(runId: string): string {
    return runPaths(taskloomPaths(this.root).runsDir, runId).events;
  }
}
