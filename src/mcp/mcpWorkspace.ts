import { errorText, TaskloomError } from '../engine/domain/taskloomError';
import type { RunStatus } from '../engine/domain/runState';
import { TaskloomEngine } from '../engine/run/engine';
import type { DriveOutcome } from '../engine/run/engineShutdown';
import type { RunSession } from '../engine/session/runSession';
import type { RunStore } from '../engine/store/runStore';
import { foregroundDoor, type FrontDoor } from '../engine/usecases/frontDoor';
import { runNotice, type RunNotice } from './runNotices';
import { mcpSettingNames } from './startGoalInput';

const COMMAND = 'taskloom mcp';

/** After these a run is stopped; anything else means the drive died mid-way. */
const STOPPED: readonly RunStatus[] = ['completed', 'needs_human', 'cancelled', 'failed', 'paused'];
/** Pass ends after which a decision made meanwhile is not worth another pass (as the engine server's runDriver). */
const FINAL_PASS: readonly DriveOutcome[] = ['completed', 'cancelled', 'paused', 'interrupted'];

interface Drive {
  controller: AbortController;
  done: Promise<void>;
  /** A decision came in during this drive: it drives once more when its pass ends. */
  redrive: boolean;
}

/**
 * The MCP server's hold on its repository: the workspace lock (the CLI's and the editor's) is
 * taken only while a call changes a run or a run is driven here, so the user's own commands work
 * between calls. Runs started or decided through MCP are driven in this process's background.
 */
export class McpWorkspace {
  private engine: Promise<TaskloomEngine> | undefined;
  private users = 0;
  private readonly drives = new Map<string, Drive>();

  /** `tell`: says a run's milestones (a task needs you, merged, the run's end) to the client, for the runs driven here. */
  constructor(
    readonly cwd: string,
    private readonly tell: (notice: RunNotice) => void = () => undefined,
  ) {}

  /** Runs `change` with the writable engine's front door, holding the lock meanwhile (LockHeldError when another process drives). */
  async withDoor<T>(change: (door: FrontDoor) => Promise<T> | T): Promise<T> {
    const engine = await this.acquire();
    try {
      return await change(this.door(engine));
    } finally {
      this.release();
    }
  }

  /** Runs `read` on the open engine's store, or on a read-only open made for it (no lock needed). */
  async withStore<T>(read: (store: RunStore) => Promise<T> | T): Promise<T> {
    if (this.engine) return this.withDoor((door) => read(door.engine.store));
    const reader = await TaskloomEngine.open(this.cwd, { command: COMMAND, readOnly: true });
    try {
      return await read(reader.store);
    } finally {
      reader.close();
    }
  }

  /** Drives the run in the background until it ends or waits for a person; the lock is held until then. */
  driveInBackground(engine: TaskloomEngine, session: RunSession): void {
    this.users += 1;
    const work: Drive = { controller: new AbortController(), done: Promise.resolve(), redrive: false };
    const { signal } = work.controller;
    const quiet = session.onEvent((event) => {
      const notice = runNotice(session.runId, event);
      if (notice) this.tell(notice);
    });
    const drive = async () => {
      for (;;) {
        const outcome = await engine.drive(session, signal);
        if (!work.redrive || signal.aborted || FINAL_PASS.includes(outcome)) return;
        work.redrive = false;
        engine.prepareResume(session, 'continuing with a decision made while the run was driven');
      }
    };
    work.done = drive()
      .catch((error: unknown) => {
        // Nobody waits on this drive: the run's record says why it stopped, so runState never shows it running forever.
        if (STOPPED.includes(session.state.status)) return;
        const why = error instanceof TaskloomError ? errorText(error) : `engine error: ${(error as Error).message}`;
        session.emit({ type: 'run_finished', status: 'failed', summary: why });
      })
      .finally(() => {
        quiet();
        this.drives.delete(session.runId);
        this.release();
      });
    this.drives.set(session.runId, work);
  }

  /** Cancels what this process drives and lets the lock go (the client went away). */
  async close(): Promise<void> {
    const drives = [...this.drives.values()];
    for (const drive of drives) drive.controller.abort();
    await Promise.all(drives.map((d) => d.done));
  }

  private door(engine: TaskloomEngine): FrontDoor {
    return {
      ...foregroundDoor(engine, mcpSettingNames()),
      backgroundWork: (runId) => (this.drives.has(runId) ? 'driving' : undefined),
      takeUpInDrive: (runId) => {
        const drive = this.drives.get(runId);
        if (!drive) return false;
        drive.redrive = true;
        return true;
      },
      stopBackgroundWork: async (runId) => {
        const drive = this.drives.get(runId);
        drive?.controller.abort();
        await drive?.done;
      },
    };
  }

  private async acquire(): Promise<TaskloomEngine> {
    this.users += 1;
    try {
      // One open for calls that come in together: a second open would meet this process's own lock.
      this.engine ??= TaskloomEngine.open(this.cwd, { command: COMMAND });
      return await this.engine;
    } catch (error) {
      this.engine = undefined;
      this.users -= 1;
      throw error;
    }
  }

  private release(): void {
    this.users -= 1;
    if (this.users > 0 || !this.engine) return;
    const closing = this.engine;
    this.engine = undefined;
    void closing.then((engine) => engine.close());
  }
}
