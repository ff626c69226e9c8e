import { sep } from 'node:path';
import type { RunnerActivity, RunnerInput } from '../agents/runner';
import type { RunEvent, RunEventBody, TranscriptLine } from '../domain/events';
import { oneLine } from '../text/clip';

/**
 * How much of a call's transcript the log keeps, and how often it is written. A real agent
 * prints a line every few seconds, so most calls fit whole; one that prints thousands costs the
 * log its first lines, a sampled line now and then and its last lines: a line every 100 ms for
 * an hour is 117 events, about 50 KB (at most about 100 KB, every line at the lineChars cut).
 */
export const TRANSCRIPT_LIMITS = {
  /** A batch is written at most this often per call: at once when the last one is older, else when this much has passed since it. */
  flushMs: 1000,
  /** A batch that only repeats the line before (a heartbeat) waits this long. */
  repeatFlushMs: 5000,
  /** The first lines of a call the log keeps… */
  headLines: 150,
  headBytes: 24 * 1024,
  /** …its last lines, written when it ends… */
  tailLines: 40,
  /** …and in between, the newest line every so often (a twentieth of the call's age, within these bounds), at most maxSamples times. */
  sampleMinMs: 5000,
  sampleMaxMs: 30_000,
  maxSamples: 100,
  /** A line is cut to this many characters. */
  lineChars: 300,
};

export type TranscriptLimits = typeof TRANSCRIPT_LIMITS;

type TranscriptCall = Pick<RunnerInput, 'taskId' | 'role' | 'attempt' | 'purpose' | 'candidate' | 'cwd'>;

/**
 * Turns one agent call's activity into `agent_transcript` events, bounded (TRANSCRIPT_LIMITS)
 * and coalesced: the first line after a quiet second is written at once (the editor shows it
 * as it happens), a burst goes out as one batch a second. The store redacts each event as it
 * writes it, like every other event. Recording never fails the call: if the log refuses a
 * batch, the rest of the transcript is dropped and the run finds the log's problem at its next
 * event.
 */
export class TranscriptRecorder {
  private readonly limits: TranscriptLimits;
  private readonly started: number;
  private callSeq: number | undefined;
  /** Lines waiting for the next batch. */
  private pending: TranscriptLine[] = [];
  /** `pending` only adds to the count of the line written last. */
  private onlyRepeats = true;
  private previous: TranscriptLine | undefined;
  private loggedLines = 0;
  private loggedBytes = 0;
  /** Past the head: lines not written since the last sample, the newest `tailLines` of them kept. */
  private unlogged = 0;
  private tail: TranscriptLine[] = [];
  private samples = 0;
  private lastFlush = -Infinity;
  private timer: NodeJS.Timeout | undefined;
  /** When the pending timer fires. */
  private due = Infinity;
  private broken = false;
  private finished = false;

  constructor(
    private readonly emit: (body: RunEventBody) => RunEvent,
    private readonly call: TranscriptCall,
    options: { limits?: Partial<TranscriptLimits>; now?: () => number } = {},
  ) {
    this.limits = { ...TRANSCRIPT_LIMITS, ...options.limits };
    this.now = options.now ?? Date.now;
    this.started = this.now();
  }

  private readonly now: () => number;

  /** The seq of the call's first batch, once one was written. */
  get seq(): number | undefined {
    return this.callSeq;
  }

  add(activity: RunnerActivity): void {
    if (this.finished || this.broken) return;
    const line = transcriptLine(activity, this.call.cwd, this.now() - this.started, this.limits.lineChars);
    if (line.text === '') return;
    const repeat = this.previous !== undefined && this.previous.kind === line.kind && this.previous.text === line.text;
    this.previous = line;
    if (this.pastHead()) {
      this.unlogged += 1;
      const last = this.tail.at(-1);
      if (repeat && last) last.n = (last.n ?? 1) + 1;
      else {
        this.tail.push(line);
        if (this.tail.length > this.limits.tailLines) this.tail.shift();
      }
      this.scheduleSample();
      return;
    }
    const last = this.pending.at(-1);
    if (repeat && last) last.n = (last.n ?? 1) + 1;
    else {
      this.pending.push(line);
      this.loggedLines += 1;
      this.loggedBytes += Buffer.byteLength(line.text);
      if (!repeat) this.onlyRepeats = false;
    }
    this.scheduleFlush();
  }

  /** Writes what is left (the last lines past the cap); returns the call's transcript seq, if it has one. */
  finish(): number | undefined {
    if (this.finished) return this.callSeq;
    this.finished = true;
    this.clearTimer();
    this.flush();
    if (this.unlogged > 0) {
      const lines = this.tail;
      this.write(lines, this.unlogged - lines.reduce((sum, line) => sum + (line.n ?? 1), 0));
      this.tail = [];
      this.unlogged = 0;
    }
    return this.callSeq;
  }

  private pastHead(): boolean {
    return this.loggedLines >= this.limits.headLines || this.loggedBytes >= this.limits.headBytes;
  }

  private scheduleFlush(): void {
    const due = this.lastFlush + (this.onlyRepeats ? this.limits.repeatFlushMs : this.limits.flushMs);
    // A new line after heartbeats brings the batch forward to the usual pace.
    if (this.timer && this.due <= due) return;
    this.clearTimer();
    const wait = due - this.now();
    if (wait <= 0) {
      this.flush();
      return;
    }
    this.setTimer(wait, () => this.flush());
  }

  /** Past the head: the newest line goes to the log now and then, so the editor still sees the call move. */
  private scheduleSample(): void {
    if (this.timer || this.samples >= this.limits.maxSamples) return;
    const age = this.now() - this.started;
    const interval = Math.min(this.limits.sampleMaxMs, Math.max(this.limits.sampleMinMs, age / 20));
    this.setTimer(Math.max(0, this.lastFlush + interval - this.now()), () => {
      this.flush();
      const newest = this.tail.at(-1);
      if (!newest || this.finished) return;
      this.samples += 1;
      this.write([newest], this.unlogged - (newest.n ?? 1));
      this.tail = [];
      this.unlogged = 0;
    });
  }

  private setTimer(wait: number, fire: () => void): void {
    this.due = this.now() + wait;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.due = Infinity;
      fire();
    }, wait);
    // A pending batch must not keep a finished process alive; finish() writes it anyway.
    this.timer.unref();
  }

  private clearTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.due = Infinity;
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const lines = this.pending;
    this.pending = [];
    this.onlyRepeats = true;
    this.write(lines, 0);
  }

  private write(lines: TranscriptLine[], omitted: number): void {
    this.lastFlush = this.now();
    if (this.broken || (lines.length === 0 && omitted <= 0)) return;
    const { taskId, role, attempt, purpose, candidate } = this.call;
    const head = this.callSeq === undefined ? { role, attempt, ...(purpose ? { purpose } : {}), ...(candidate !== undefined ? { candidate } : {}) } : { call: this.callSeq };
    try {
      const event = this.emit({ type: 'agent_transcript', taskId, ...head, lines, ...(omitted > 0 ? { omitted } : {}) });
      this.callSeq ??= event.seq;
    } catch {
      // The log refused it (disk full): the transcript stops here; the run meets the error at its next event.
      this.broken = true;
      this.clearTimer();
    }
  }
}

/**
 * One line as a transcript shows it: on one line, cut to `maxChars`, with the call's worktree
 * left out of paths (`/…/worktrees/run/task/src/a.ts` reads `src/a.ts`).
 */
export function transcriptLine(activity: RunnerActivity, cwd: string | undefined, ms: number, maxChars: number): TranscriptLine {
  return { kind: activity.kind, text: oneLine(relativeToCwd(activity.message, cwd), maxChars), ms: Math.max(0, Math.round(ms)) };
}

/** `text` with the paths under `cwd` written relative to it (agents print absolute ones). */
export function relativeToCwd(text: string, cwd: string | undefined): string {
  if (!cwd || !text.includes(cwd)) return text;
  const root = cwd.endsWith(sep) ? cwd : `${cwd}${sep}`;
  return text.split(root).join('').split(cwd).join('.');
}
