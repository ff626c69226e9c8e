import * as vscode from 'vscode';
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  State,
  TransportKind,
  type ErrorHandler,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import type { NotificationType, RequestType } from 'vscode-languageserver-protocol';
import {
  ActivityNotification,
  EventsNotification,
  type ActivityParams,
  type EventsParams,
} from '../../protocol/engineProtocol';
import { Disposable } from '../disposable';
import { log } from '../logger';
import { runCommand } from '../runCommand';

/** A request to a client that has just started (not through `request`, which waits for the start). */
export type SendRequest = <P, R>(type: RequestType<P, R, unknown>, params: P) => Promise<R>;

/** Crashes within the language client's window (3 minutes) after which it stops restarting the engine. */
const MAX_RESTARTS = 4;

/**
 * The engine server process, started on first use (never at activation) over IPC by
 * vscode-languageclient, whose default error handler restarts it when it crashes (unless it
 * crashed too often in the last minutes; then Restart Engine starts it again). Every restart is reported, and
 * `onDidRestart` lets the views fetch the runs again: the engine's log on disk is the truth,
 * so nothing the crashed engine acknowledged is lost.
 */
export class EngineClient extends Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<LanguageClient> | undefined;
  /** The language client's own policy, made with the client (it needs the client to exist). */
  private defaultHandler: ErrorHandler | undefined;
  private readonly eventsEmitter = this._register(new vscode.EventEmitter<EventsParams>());
  private readonly activityEmitter = this._register(new vscode.EventEmitter<ActivityParams>());
  private readonly restartEmitter = this._register(new vscode.EventEmitter<void>());
  readonly onEvents = this.eventsEmitter.event;
  readonly onActivity = this.activityEmitter.event;
  /** The engine came back after a crash (not fired on the first start). */
  readonly onDidRestart = this.restartEmitter.event;
  private readonly stopEmitter = this._register(new vscode.EventEmitter<void>());
  /** The engine process is gone (crashed, or stopped for good): nothing it drove is running now. */
  readonly onDidStop = this.stopEmitter.event;

  constructor(
    private readonly serverModule: string,
    /** What a started engine is told before any other request (and again after a restart): the notification targets. */
    private readonly prepare: (send: SendRequest) => Promise<void> = async () => undefined,
  ) {
    super();
  }

  get isRunning(): boolean {
    return this.client?.state === State.Running;
  }

  async request<P, R>(type: RequestType<P, R, unknown>, params: P, token?: vscode.CancellationToken): Promise<R> {
    const client = await this.start();
    // RequestParam<P> is a conditional type TypeScript cannot resolve for a generic P.
    return client.sendRequest(type, params as never, token);
  }

  start(): Promise<LanguageClient> {
    this.starting ??= this.create().catch((error: unknown) => {
      this.starting = undefined;
      throw error;
    });
    return this.starting;
  }

  private async create(): Promise<LanguageClient> {
    const run = { module: this.serverModule, transport: TransportKind.ipc };
    const serverOptions: ServerOptions = { run, debug: { ...run, options: { execArgv: ['--enable-source-maps'] } } };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [],
      outputChannel: log,
      errorHandler: this.errorHandler(),
      // The engine owns no documents; its diagnostics come by our own notification.
      initializationFailedHandler: (error) => {
        log.error(`The Taskloom engine failed to start: ${String(error)}`);
        return false;
      },
    };
    const client = new LanguageClient('taskloom.engine', 'Taskloom Engine', serverOptions, clientOptions);
    this.defaultHandler = client.createDefaultErrorHandler(MAX_RESTARTS);
    this.listen(client, EventsNotification.type, this.eventsEmitter);
    this.listen(client, ActivityNotification.type, this.activityEmitter);
    let firstStart = true;
    client.onDidChangeState(({ newState }) => {
      if (newState === State.Stopped) this.stopEmitter.fire();
      if (newState !== State.Running) return;
      if (firstStart) firstStart = false;
      else void this.prepareEngine(client).then(() => this.restartEmitter.fire());
    });
    const started = Date.now();
    await client.start();
    log.info(`engine started in ${Date.now() - started} ms`);
    await this.prepareEngine(client);
    this.client = client;
    return client;
  }

  /** A failure is logged and the engine used anyway: without its targets, a run still runs. */
  private async prepareEngine(client: LanguageClient): Promise<void> {
    try {
      await this.prepare((type, params) => client.sendRequest(type, params as never));
    } catch (error) {
      log.warn(`preparing the engine failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private listen<P>(client: LanguageClient, type: NotificationType<P>, emitter: vscode.EventEmitter<P>): void {
    client.onNotification(type, (params) => emitter.fire(params));
  }

  /** The default policy, with words: what happened, that nothing is lost, and what to do next. */
  private errorHandler(): ErrorHandler {
    return {
      error: (error, message, count) => this.defaultHandler?.error(error, message, count) ?? { action: ErrorAction.Continue },
      closed: async () => {
        const decided = (await this.defaultHandler?.closed()) ?? { action: CloseAction.DoNotRestart };
        if (decided.action === CloseAction.DoNotRestart) {
          void vscode.window
            .showErrorMessage(
              "Taskloom's engine stopped several times in a few minutes and was not restarted. Your runs are saved; Restart Engine tries again.",
              'Restart Engine',
              'Show Output',
            )
            .then((choice) => {
              if (choice === 'Restart Engine') void runCommand('taskloom.restartEngine');
              if (choice === 'Show Output') log.show(true);
            });
        } else {
          void vscode.window
            .showWarningMessage(
              "Taskloom's engine stopped unexpectedly and was restarted. Nothing it recorded is lost; the run it was driving is in Needs You, to resume.",
              'Show Output',
            )
            .then((choice) => choice && log.show(true));
        }
        return { action: decided.action, handled: true };
      },
    };
  }

  /** Starts the engine again after the client gave up on it (or stops and starts a running one). */
  async restart(): Promise<void> {
    const client = this.client;
    if (client?.isRunning()) await client.restart();
    else if (client) await client.start();
    else await this.start();
  }

  /** Also stops the engine process, waiting (a little) for it to go: deactivate awaits this. */
  override async dispose(): Promise<void> {
    super.dispose();
    const client = this.client;
    this.client = undefined;
    if (client?.isRunning()) await client.stop(5_000).catch(() => undefined);
  }
}
