import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import './testStateDir';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createMessageConnection,
  IPCMessageReader,
  IPCMessageWriter,
  type CancellationToken,
  type MessageConnection,
  type RequestType,
} from 'vscode-jsonrpc/node';
import type { RunEvent } from '../../src/engine/domain/events';
import {
  ActivityNotification,
  EventsNotification,
  type ActivityParams,
} from '../../src/protocol/engineProtocol';

export const ENGINE_SERVER = join(__dirname, '..', '..', 'dist', 'engine-server.js');

/**
 * The bundled engine server as a real child process, spoken to over node IPC with
 * vscode-jsonrpc, as vscode-languageclient does. It records every notification it receives.
 */
export class EngineServerProcess {
  /** Events received, per run, in arrival order. */
  readonly events = new Map<string, RunEvent[]>();
  readonly activity: ActivityParams[] = [];
  stderr = '';
  /** The server's log lines (window/logMessage), with their level: 1 error, 2 warning, 3 info, 4 log. */
  readonly log: Array<{ type: number; message: string }> = [];
  private readonly waiters = new Set<() => void>();

  private constructor(
    readonly child: ChildProcess,
    readonly connection: MessageConnection,
  ) {}

  /** `fileSizeKiB`: the server runs under `ulimit -f`, so a write past that size fails with EFBIG, as on a full disk. */
  static async start(env: NodeJS.ProcessEnv = {}, options: { fileSizeKiB?: number } = {}): Promise<EngineServerProcess> {
    const limited = options.fileSizeKiB === undefined ? {} : { execPath: 'bash', execArgv: ['-c', `ulimit -f ${options.fileSizeKiB} && exec "${process.execPath}" "$0" "$@"`] };
    const child = fork(ENGINE_SERVER, ['--node-ipc'], { silent: true, env: { ...process.env, NO_COLOR: '1', ...env }, ...limited });
    const connection = createMessageConnection(new IPCMessageReader(child), new IPCMessageWriter(child));
    const server = new EngineServerProcess(child, connection);
    child.stderr!.on('data', (chunk: Buffer) => {
      server.stderr += chunk.toString();
      // The server's log (the extension's output channel), for a human debugging a test.
      if (process.env.TASKLOOM_SERVER_LOG) process.stderr.write(chunk);
    });
    child.stdout!.resume();
    connection.onNotification(EventsNotification.type, (params) => {
      const list = server.events.get(params.runId) ?? [];
      list.push(...params.events);
      server.events.set(params.runId, list);
      server.wake();
    });
    connection.onNotification(ActivityNotification.type, (params) => {
      server.activity.push(params);
    });
    connection.onNotification('window/logMessage', (params: { type: number; message: string }) => {
      server.log.push(params);
      if (process.env.TASKLOOM_SERVER_LOG) process.stderr.write(`${params.message}\n`);
    });
    connection.listen();
    await connection.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {} });
    await connection.sendNotification('initialized', {});
    return server;
  }

  request<P, R>(type: RequestType<P, R, unknown>, params: P, token?: CancellationToken): Promise<R> {
    // By method name: the typed overload's conditional parameter type cannot be met by a generic P.
    return token ? this.connection.sendRequest<R>(type.method, params, token) : this.connection.sendRequest<R>(type.method, params);
  }

  eventsOf(runId: string): RunEvent[] {
    return this.events.get(runId) ?? [];
  }

  /** Waits until `test` holds on the events received for the run; fails with what was received. */
  async waitForEvents(runId: string, test: (events: RunEvent[]) => boolean, timeoutMs = 60_000): Promise<RunEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while (!test(this.eventsOf(runId))) {
      if (Date.now() > deadline || this.exited) {
        const got = this.eventsOf(runId).map((e) => `${e.seq} ${e.type}${'to' in e ? ` ${e.taskId} → ${e.to}` : ''}`).join('\n');
        throw new Error(`Timed out waiting for events of ${runId}. Received:\n${got}\nServer log:\n${this.log.map((l) => l.message).join('\n')}\n${this.stderr}`);
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.waiters.delete(wake);
          resolve();
        };
        this.waiters.add(wake);
        void sleep(200).then(wake);
      });
    }
    return this.eventsOf(runId);
  }

  /** Waits for the run to end (a run_finished or run_paused after seq `afterSeq`) and returns that event. */
  async waitForEnd(runId: string, afterSeq = 0, timeoutMs = 90_000): Promise<RunEvent> {
    const isEnd = (e: RunEvent) => e.seq > afterSeq && (e.type === 'run_finished' || e.type === 'run_paused');
    const events = await this.waitForEvents(runId, (list) => list.some(isEnd), timeoutMs);
    return events.find(isEnd)!;
  }

  lastSeq(runId: string): number {
    return this.eventsOf(runId).at(-1)?.seq ?? 0;
  }

  /** The polite way out: shutdown, then exit, as the language client does on stop. */
  async stop(): Promise<void> {
    if (this.exited) return;
    const exited = once(this.child, 'exit');
    await this.connection.sendRequest('shutdown').catch(() => undefined);
    await this.connection.sendNotification('exit').catch(() => undefined);
    await Promise.race([exited, sleep(10_000)]);
    this.connection.dispose();
    if (!this.exited) this.child.kill('SIGKILL');
  }

  /** As a crash would: no shutdown, no exit handlers. */
  async kill(): Promise<void> {
    const exited = once(this.child, 'exit');
    this.child.kill('SIGKILL');
    await exited;
    this.connection.dispose();
  }

  get exited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
