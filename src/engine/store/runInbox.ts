import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { idPattern } from '../domain/ids';
import { MAX_MESSAGE_CHARS } from '../domain/taskMessages';
import { writeFileAtomic } from '../io/atomicWrite';

export { MAX_MESSAGE_CHARS };

const taskId = z.string().regex(idPattern('task'));
const common = { id: z.uuid(), at: z.iso.datetime(), from: z.string().min(1).max(200), taskId };

/**
 * What a person asks of a running run from any process (a terminal while the editor drives, the
 * editor while a terminal drives): say something to a task's agent, stop that task, or take it over. The process
 * that drives the run is the only one that acts on it and records it, as it is the log's only writer.
 */
export const RunRequestSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('message'), ...common, text: z.string().trim().min(1).max(MAX_MESSAGE_CHARS) }),
  z.strictObject({ kind: z.literal('stop'), ...common }),
  /** Stop the task if it runs, and record that `from` works on it themselves now (run/personAtTask.ts: takeOverInDrive). */
  z.strictObject({ kind: z.literal('take_over'), ...common }),
]);
export type RunRequest = z.infer<typeof RunRequestSchema>;
export type RunRequestInput = RunRequest extends infer R ? (R extends RunRequest ? Omit<R, 'id' | 'at'> : never) : never;

/** A file of the inbox that is no request (hand-written, truncated by a full disk): set aside, never acted on. */
export interface UnreadableRequest {
  file: string;
  problem: string;
}

/** How often a drive looks in its inbox besides fs.watch's word (which some file systems never give). */
const POLL_MS = 500;

/**
 * `<run dir>/inbox/`: requests to a run, one file each, named so that a listing is their order.
 * Posting needs no lock (an atomic rename of a new file); the driving process reads them, records
 * each as an event and only then removes it, so a request outlives a crash of either side and a
 * run nobody drives finds its requests when it is next driven. Agents never see `.taskloom/`, so
 * nothing they write arrives here.
 */
export class RunInbox {
  readonly dir: string;

  constructor(runDir: string) {
    this.dir = path.join(runDir, 'inbox');
  }

  /** Leaves a request for whoever drives the run (now, or when it is next resumed); returns it as posted. */
  post(input: RunRequestInput): RunRequest {
    const request = RunRequestSchema.parse({ ...input, id: randomUUID(), at: new Date().toISOString() });
    fs.mkdirSync(this.dir, { recursive: true });
    writeFileAtomic(path.join(this.dir, `${request.at.replace(/[:.]/g, '-')}-${request.id}.json`), JSON.stringify(request));
    return request;
  }

  /** The requests waiting, oldest first, and the files that are not requests. */
  read(): { requests: RunRequest[]; unreadable: UnreadableRequest[] } {
    const requests: RunRequest[] = [];
    const unreadable: UnreadableRequest[] = [];
    for (const name of this.names()) {
      const file = path.join(this.dir, name);
      const parsed = parseRequest(file);
      if (parsed.ok) requests.push(parsed.request);
      else unreadable.push({ file, problem: parsed.problem });
    }
    return { requests, unreadable };
  }

  /** Removes a request once it was recorded. */
  done(request: Pick<RunRequest, 'id'>): void {
    for (const name of this.names()) if (name.endsWith(`-${request.id}.json`)) fs.rmSync(path.join(this.dir, name), { force: true });
  }

  /** Moves a file that is no request out of the way (kept beside the inbox, for a person to read). */
  setAside(file: string): void {
    const aside = path.join(path.dirname(this.dir), 'inbox-unreadable');
    fs.mkdirSync(aside, { recursive: true });
    fs.renameSync(file, path.join(aside, path.basename(file)));
  }

  /**
   * Hands each request to `onRequest` as it arrives (those already waiting first), one at a time
   * and in order; a request is removed after `onRequest` resolves, so one it threw on is offered
   * again at the next look (and those after it wait for it). Returns the function that stops listening.
   */
  listen(onRequest: (request: RunRequest) => Promise<void> | void, onUnreadable: (unreadable: UnreadableRequest) => void): () => void {
    let stopped = false;
    let busy: Promise<void> | undefined;
    let again = false;
    const look = (): void => {
      if (stopped) return;
      if (busy) {
        again = true;
        return;
      }
      busy = this.drain(onRequest, onUnreadable, () => stopped).finally(() => {
        busy = undefined;
        if (again) {
          again = false;
          look();
        }
      });
    };
    fs.mkdirSync(this.dir, { recursive: true });
    let watcher: fs.FSWatcher | undefined;
    try {
      watcher = fs.watch(this.dir, look);
      watcher.on('error', () => undefined);
    } catch {
      // Polling alone still finds every request.
    }
    const timer = setInterval(look, POLL_MS);
    timer.unref();
    look();
    return () => {
      stopped = true;
      clearInterval(timer);
      watcher?.close();
    };
  }

  private async drain(onRequest: (request: RunRequest) => Promise<void> | void, onUnreadable: (u: UnreadableRequest) => void, stopped: () => boolean): Promise<void> {
    const { requests, unreadable } = this.read();
    for (const bad of unreadable) {
      this.setAside(bad.file);
      onUnreadable(bad);
    }
    for (const request of requests) {
      if (stopped()) return;
      try {
        await onRequest(request);
        this.done(request);
      } catch {
        // Left in the inbox and offered again at the next look; those after it wait, so order holds.
        return;
      }
    }
  }

  private names(): string[] {
    try {
      return fs
        .readdirSync(this.dir)
        .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
        .sort();
    } catch {
      return [];
    }
  }
}

const MAX_REQUEST_BYTES = MAX_MESSAGE_CHARS * 4 + 4096;

function parseRequest(file: string): { ok: true; request: RunRequest } | { ok: false; problem: string } {
  try {
    const size = fs.statSync(file).size;
    if (size > MAX_REQUEST_BYTES) return { ok: false, problem: `${size} bytes, more than a request can be` };
    const parsed = RunRequestSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
    return parsed.success ? { ok: true, request: parsed.data } : { ok: false, problem: z.prettifyError(parsed.error) };
  } catch (error) {
    return { ok: false, problem: (error as Error).message };
  }
}
