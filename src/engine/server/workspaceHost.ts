import { EngineShutdown, interruptedWarning } from '../run/engineShutdown';
import { setTimeout as sleep } from 'node:timers/promises';
import { TaskloomEngine } from '../run/engine';
import type { RunSession } from '../session/runSession';
import type { RunStore } from '../store/runStore';
import type { EventBatcher } from './eventBatcher';
import { forwardRunEvents } from './forwardRunEvents';
import { ElsewhereFollower } from './followElsewhere';
import { describeLockOwner, liveLockOwner } from '../store/lock';
import { taskloomPaths } from '../store/paths';
import { hostname } from 'node:os';
import type { ServerOutput } from './serverOutput';
import { UserError } from './userError';
import type { FrontDoor } from '../usecases/frontDoor';
import { RunBusyError } from '../usecases/useCaseErrors';
import { EDITOR_SETTING_KEYS } from '../../protocol/runSettings';
import { NOTIFY_TIMING, type Notifier } from '../notify/notifier';
import type { ForgeAccess } from '../deliver/issueStatusFollower';

/** Shown to a CLI that finds the workspace locked by this server. */
export const SERVER_COMMAND = 'Taskloom engine server (VS Code)';

/** A cancel answers once the run has stopped, or after this long if agents are slow to. */
const CANCEL_WAIT_MS = 15_000;

/** Planning or driving that this server is doing for a run, in the background. */
export interface ActiveWork {
  kind: 'planning' | 'driving';
  /** The workspace folder the editor named when it started the work (notifications carry it). */
  folder: string;
  controller: AbortController;
  done: Promise<void>;
  /** A human decision arrived while the run was driven: drive once more when this pass ends. */
  redrive: boolean;
}

/**
 * Everything the server does in one repository. It holds the workspace lock (an open,
 * writable engine) only while it plans, drives or changes a run there, and releases it as
 * soon as nothing is active, so the CLI can work in between. Reads use the open engine's
 * store when there is one, otherwise a fresh read-only open, which sees what the CLI wrote.
 */
export class WorkspaceHost {
  private engine: TaskloomEngine | undefined;
  private opening: Promise<TaskloomEngine> | undefined;
  /** Requests and background work using the engine; it is closed when this drops to 0. */
  private leases = 0;
  private readonly work = new Map<string, ActiveWork>();
  private follower: ElsewhereFollower | undefined;
  /** How the editor last reached GitHub (its sign-in), for the issue status comments of every engine opened here. */
  private forgeAccess: ForgeAccess = {};
  /** The notifier the open engine sends word through, if any. */
  private openNotifier: Notifier | undefined;

  constructor(
    readonly root: string,
    private readonly batcher: EventBatcher,
    private readonly output: ServerOutput,
    /** The user's notifier as the editor last set it (WorkspaceHosts.setNotifyTargets). */
    private readonly notifier: () => Notifier | undefined = () => undefined,
  ) {}

  /** Who holds the workspace lock, when it is another process. */
  drivenElsewhere(): string | undefined {
    if (this.holdsLock) return undefined;
    const owner = liveLockOwner(taskloomPaths(this.root).dir);
    if (!owner || (owner.pid === process.pid && owner.host === hostname())) return undefined;
    return describeLockOwner(owner);
  }

  /** Sends the events another process writes to `folder`'s editor, until it lets go of the lock. */
  followElsewhere(folder: string): void {
    if (this.follower?.following) return;
    this.follower = new ElsewhereFollower(this.root, folder, this.batcher, () => this.drivenElsewhere() !== undefined, (m) =>
      this.output.log(m),
    );
    this.follower.start();
  }

  /** This server holds the workspace lock now. */
  get holdsLock(): boolean {
    return this.engine !== undefined;
  }

  activeWork(runId: string): ActiveWork | undefined {
    return this.work.get(runId);
  }

  /** Refuses a change to a run this server is planning or driving. */
  assertIdle(runId: string): void {
    const kind = this.work.get(runId)?.kind;
    if (kind) throw new RunBusyError(runId, kind);
  }

  /**
   * The use cases' way in (src/engine/usecases): sessions whose events go to the editor for
   * `folder`, and this server's background planning and driving. Call it inside `withEngine`.
   */
  door(engine: TaskloomEngine, folder: string): FrontDoor {
    return {
      engine,
      settingNames: EDITOR_SETTING_KEYS,
      session: (runId) => this.session(engine, runId, folder),
      createRun: (plan, config, goal) => {
        const created = engine.createRun(plan, config, goal);
        // Written by the store itself, not emitted by a session: sent before any event of the session's.
        this.batcher.push(folder, engine.store.events(created.runId).events[0]!);
        return this.session(engine, created.runId, folder);
      },
      backgroundWork: (runId) => this.work.get(runId)?.kind,
      takeUpInDrive: (runId) => {
        const work = this.work.get(runId);
        if (work?.kind !== 'driving') return false;
        work.redrive = true;
        return true;
      },
      stopBackgroundWork: async (runId) => {
        const work = this.work.get(runId);
        if (!work) return;
        work.controller.abort();
        await Promise.race([work.done, sleep(CANCEL_WAIT_MS)]);
      },
    };
  }

  /**
   * Runs `change` with the writable engine, taking the workspace lock if this server does not
   * hold it yet (LockHeldError when another process does), and releasing it afterwards unless
   * other work still needs it.
   */
  async withEngine<T>(change: (engine: TaskloomEngine) => Promise<T> | T): Promise<T> {
    const engine = await this.acquire();
    try {
      return await change(engine);
    } finally {
      this.release();
    }
  }

  /** Runs `read` on the open engine's store, or on a read-only open made for it. */
  async withStore<T>(read: (store: RunStore, warnings: string[]) => Promise<T> | T): Promise<T> {
    if (this.engine) {
      const engine = await this.acquire();
      try {
        return await read(engine.store, []);
      } finally {
        this.release();
      }
    }
    const reader = await TaskloomEngine.open(this.root, { command: SERVER_COMMAND, readOnly: true });
    try {
      return await read(reader.store, [...reader.warnings]);
    } finally {
      reader.close();
    }
  }

  /** A run's session whose events (and findings) go to the editor for `folder`. */
  session(engine: TaskloomEngine, runId: string, folder: string): RunSession {
    const known = engine.warnings.length;
    const session = engine.session(runId);
    for (const warning of engine.warnings.slice(known)) this.output.log(`Run ${runId}: ${warning}`);
    forwardRunEvents(session, folder, this.batcher, this.output);
    return session;
  }

  /**
   * Reaches GitHub as the editor does from now on, also from the engines opened later (this
   * server closes its engine between planning and driving), so a run's status comment moves with it.
   */
  reachForgeWith(access: ForgeAccess): void {
    this.forgeAccess = access;
    this.engine?.reachForgeWith(access);
  }

  /**
   * Starts `job` on a run in the background, holding the lock until it ends. Call it inside
   * `withEngine` (the engine is open). The job must report its own outcome as events; what it
   * throws anyway is logged, never left as an unhandled rejection.
   */
  startWork(runId: string, kind: ActiveWork['kind'], folder: string, job: (engine: TaskloomEngine, work: ActiveWork) => Promise<void>): ActiveWork {
    const engine = this.engine;
    if (!engine || this.leases === 0) throw new Error('startWork needs the engine open (call it inside withEngine)');
    if (this.work.has(runId)) throw new UserError(`Run ${runId} is already being ${this.work.get(runId)!.kind === 'planning' ? 'planned' : 'driven'} here`);
    this.leases += 1;
    const work: ActiveWork = { kind, folder, controller: new AbortController(), done: Promise.resolve(), redrive: false };
    this.work.set(runId, work);
    work.done = (async () => {
      try {
        await job(engine, work);
      } catch (error) {
        this.output.log(`Background ${kind} of run ${runId} failed: ${(error as Error).stack ?? String(error)}`);
      } finally {
        this.retire(runId, work);
        if (kind === 'driving') await this.sendNotices();
        this.batcher.flushRun(folder, runId);
        this.release();
      }
    })();
    return work;
  }

  /**
   * A drive ended: its last word goes now, and the lock is held while it is delivered (at most
   * the notifier's grace), so a failed delivery is still recorded in the run as a warning.
   */
  private async sendNotices(): Promise<void> {
    const notifier = this.openNotifier;
    if (!notifier) return;
    notifier.sendWaiting();
    await Promise.race([notifier.settled(), sleep(NOTIFY_TIMING.closeGraceMs, undefined, { ref: false })]);
  }

  /** The work is over: from now on a request on the run starts new work instead of joining it. */
  retire(runId: string, work: ActiveWork): void {
    if (this.work.get(runId) === work) this.work.delete(runId);
  }

  /** Aborts every run's planning or driving, waits up to `graceMs` for agents to stop, then releases the lock. */
  async shutdown(graceMs: number): Promise<void> {
    this.follower?.stop();
    const running = [...this.work.values()];
    const shutdown = new EngineShutdown('the engine was shut down with the editor window');
    // Interrupted, not cancelled: the run stays unfinished and the next window offers to resume it.
    for (const work of running) work.controller.abort(shutdown);
    await Promise.race([Promise.allSettled(running.map((w) => w.done)), sleep(graceMs)]);
    // A drive still stopping its agents when the grace ends never gets to say so itself: the log
    // says it here, or it would end on whatever the agents last wrote.
    for (const [runId, work] of this.work) {
      if (work.kind === 'driving' && this.engine) this.engine.session(runId).emit(interruptedWarning(shutdown.message));
    }
    this.batcher.flushAll();
    this.engine?.close();
    this.engine = undefined;
  }

  private async acquire(): Promise<TaskloomEngine> {
    this.leases += 1;
    if (this.engine) return this.engine;
    try {
      this.opening ??= this.open().finally(() => {
        this.opening = undefined;
      });
      return await this.opening;
    } catch (error) {
      this.leases -= 1;
      throw error;
    }
  }

  private async open(): Promise<TaskloomEngine> {
    const notifier = this.notifier();
    const engine = await TaskloomEngine.open(this.root, {
      command: SERVER_COMMAND,
      ...(notifier ? { notifier } : {}),
      onActivity: (runId, taskId, role, activity) =>
        this.output.activity({ folder: this.work.get(runId)?.folder ?? this.root, runId, taskId, line: `${role}: ${activity.message}` }),
    });
    for (const warning of engine.warnings) this.output.log(`${this.root}: ${warning}`);
    engine.warnings.length = 0;
    engine.reachForgeWith(this.forgeAccess);
    this.engine = engine;
    this.openNotifier = notifier;
    // The other process let go: send what it wrote last, then stop following, before this
    // engine's own events start (the follower would read those from disk a second time).
    if (this.follower?.following) this.follower.tick();
    return engine;
  }

  private release(): void {
    this.leases -= 1;
    if (this.leases > 0 || !this.engine) return;
    const engine = this.engine;
    this.engine = undefined;
    try {
      engine.close();
    } catch (error) {
      this.output.log(`Closing the engine of ${this.root} failed: ${(error as Error).stack ?? String(error)}`);
    }
  }
}
