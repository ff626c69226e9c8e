import { unwatchFile, watchFile } from 'node:fs';
import { TaskloomError } from '../engine/domain/taskloomError';
import { getRun } from '../engine/usecases/readRuns';
import type { McpWorkspace } from './mcpWorkspace';

/** How often a subscribed run's files are looked at: a run is followed from this process and from others (the CLI, the editor) alike. */
export const RESOURCE_POLL_MS = 500;

const RUN_RESOURCE = /^taskloom:\/\/runs\/([^/]+)\/(trace|decisions)$/;

interface Subscription {
  file: string;
  onChange: () => void;
}

/**
 * The client's subscriptions to runs' resources (resources/subscribe): each URI is followed by
 * the file it is read from — the run's event log for its trace, DECISIONS.md for the ledger — and
 * every change is told as notifications/resources/updated, so a client hears a run go on after
 * the call that started it returned. The files are polled, not watched by the OS: a run driven by
 * another process is followed the same way, on every file system.
 */
export class ResourceUpdates {
  private readonly subscriptions = new Map<string, Subscription>();

  constructor(
    private readonly workspace: McpWorkspace,
    private readonly updated: (uri: string) => Promise<void>,
  ) {}

  async subscribe(uri: string): Promise<void> {
    if (this.subscriptions.has(uri)) return;
    const [, runId, kind] = RUN_RESOURCE.exec(uri) ?? [];
    if (!runId) {
      throw new TaskloomError('bad_input', `${uri} is not a Taskloom resource`, 'Subscribe to taskloom://runs/RUN_ID/trace or taskloom://runs/RUN_ID/decisions, as resources/list names them.');
    }
    const paths = await this.workspace.withStore((store) => store.runPaths(getRun(store, { runId }).runId));
    const file = kind === 'trace' ? paths.events : paths.decisions;
    // A client that went away misses the word; the run goes on.
    const onChange = () => void this.updated(uri).catch(() => undefined);
    watchFile(file, { interval: RESOURCE_POLL_MS, persistent: false }, onChange);
    this.subscriptions.set(uri, { file, onChange });
  }

  unsubscribe(uri: string): void {
    const subscription = this.subscriptions.get(uri);
    if (!subscription) return;
    unwatchFile(subscription.file, subscription.onChange);
    this.subscriptions.delete(uri);
  }

  close(): void {
    for (const uri of [...this.subscriptions.keys()]) this.unsubscribe(uri);
  }
}
