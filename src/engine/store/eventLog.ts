import fs from 'node:fs';
import path from 'node:path';
import type { RunEvent } from '../domain/events';

/**
 * A line that cannot be parsed and is not the last one. An interrupted append can only
 * damage the end of the file, so this was damaged some other way and we refuse to guess.
 */
export class CorruptLogError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly detail: string,
  ) {
    super(
      `${file}, line ${line}: ${detail}. Only the last line can be torn by an interrupted write, ` +
        'so this line was damaged some other way; Taskloom will not guess. Repair or remove the line by hand.',
    );
    this.name = 'CorruptLogError';
  }
}

export interface ReadOptions {
  /**
   * Only return events with a larger seq (the tail after a snapshot). Lines at or below it
   * are recognised by their `{"seq":N,` prefix and not parsed, so damage inside them goes
   * unnoticed: the snapshot already covers them.
   */
  afterSeq?: number;
}

export interface ReadResult {
  events: RunEvent[];
  warnings: string[];
  /** Seq of the last intact event in the whole file (0 when there is none), whatever `afterSeq` skipped. */
  lastSeq: number;
}

const NEWLINE = 0x0a;
const READ_CHUNK = 16 * 1024 * 1024;
const SCAN_CHUNK = 64 * 1024;
// The store writes `seq` first, so lines covered by a snapshot are skipped without JSON.parse.
const SEQ_PREFIX = /^\{"seq":(\d+),/;

/**
 * The append-only JSONL log of one run. Each append is fsync'ed before it returns, so an
 * event the engine acts on is on disk. The file descriptor stays open: an append costs the
 * same at event 10 and at event 100,000.
 */
export class EventLog {
  private constructor(
    readonly file: string,
    private fd: number | undefined,
    /** Bytes known to be intact; a failed append is cut back to here. */
    private size: number,
  ) {}

  /** Opens (creating) the log for appending, first cutting off a torn last line so the next append starts clean. */
  static open(file: string): { log: EventLog; warnings: string[] } {
    const dir = path.dirname(file);
    const firstNewDir = fs.mkdirSync(dir, { recursive: true });
    const existed = fs.existsSync(file);
    const fd = fs.openSync(file, 'a+');
    try {
      // A new file's directory entry (and any new directory's) must be durable too, or the
      // first event can vanish with it.
      if (!existed) {
        const top = firstNewDir === undefined ? dir : path.dirname(firstNewDir);
        for (let d = dir; ; d = path.dirname(d)) {
          fsyncDirectory(d);
          if (d === top || d === path.dirname(d)) break;
        }
      }
      const warnings: string[] = [];
      let size = fs.fstatSync(fd).size;
      const tornStart = tornTailStart(fd, size);
      if (tornStart !== undefined) {
        const torn = readRange(fd, tornStart, size);
        saveTornBytes(`${file}.torn`, torn);
        fs.ftruncateSync(fd, tornStart);
        fs.fsyncSync(fd);
        size = tornStart;
        warnings.push(
          `${tornLineWarning(file, torn.length)}; its bytes were saved to ${path.basename(file)}.torn and the log now ends at the last complete event`,
        );
      }
      return { log: new EventLog(file, fd, size), warnings };
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
  }

  /** Appends one event as one line and returns once it is on disk. */
  append(event: RunEvent): void {
    const fd = this.fd;
    if (fd === undefined) throw new Error(`${this.file} is closed`);
    const bytes = Buffer.from(`${JSON.stringify(event)}\n`, 'utf8');
    try {
      let written = 0;
      while (written < bytes.length) written += fs.writeSync(fd, bytes, written, bytes.length - written);
      fs.fsyncSync(fd);
    } catch (error) {
      // A half line left behind would sit in the middle of the log after the next append
      // and make the whole run unreadable.
      try {
        fs.ftruncateSync(fd, this.size);
      } catch {
        // The original error is the one worth reporting.
      }
      throw error;
    }
    this.size += bytes.length;
  }

  close(): void {
    if (this.fd === undefined) return;
    fs.closeSync(this.fd);
    this.fd = undefined;
  }

  get isOpen(): boolean {
    return this.fd !== undefined;
  }

  /**
   * Reads the whole log once, in large chunks. A torn last line is ignored with a warning;
   * an unparsable line anywhere else, or a seq that does not increase, throws CorruptLogError.
   * A missing file reads as empty.
   */
  static read(file: string, options: ReadOptions = {}): ReadResult {
    const afterSeq = options.afterSeq ?? 0;
    let fd: number;
    try {
      fd = fs.openSync(file, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { events: [], warnings: [], lastSeq: 0 };
      throw error;
    }
    const events: RunEvent[] = [];
    const warnings: string[] = [];
    let lastSeq = 0;
    let lineNo = 0;
    // An unparsable line is only acceptable as the very last one, so judgement waits for the next line.
    let suspect: { line: number; bytes: number } | undefined;
    const refuseSuspect = (): never => {
      throw new CorruptLogError(file, suspect!.line, 'not a valid event line');
    };
    const takeSeq = (seq: number): void => {
      if (seq <= lastSeq) throw new CorruptLogError(file, lineNo, `seq ${seq} does not follow seq ${lastSeq}`);
      lastSeq = seq;
    };

    const handleLine = (line: string): void => {
      lineNo += 1;
      if (afterSeq > 0) {
        const prefix = SEQ_PREFIX.exec(line);
        if (prefix) {
          const seq = Number(prefix[1]);
          if (seq <= afterSeq) {
            if (suspect) refuseSuspect();
            takeSeq(seq);
            return;
          }
        }
      }
      const event = parseEventLine(line);
      if (!event) {
        if (isBlank(line)) return;
        if (suspect) refuseSuspect();
        suspect = { line: lineNo, bytes: Buffer.byteLength(line) + 1 };
        return;
      }
      if (suspect) refuseSuspect();
      takeSeq(event.seq);
      if (event.seq > afterSeq) events.push(event);
    };

    let carry: Buffer = Buffer.alloc(0);
    try {
      const buffer = Buffer.allocUnsafe(READ_CHUNK);
      for (;;) {
        const n = fs.readSync(fd, buffer, 0, READ_CHUNK, null);
        if (n === 0) break;
        const data = carry.length > 0 ? Buffer.concat([carry, buffer.subarray(0, n)]) : buffer.subarray(0, n);
        const lastNewline = data.lastIndexOf(NEWLINE);
        // `buffer` is reused by the next read, so what is kept must be copied out of it.
        if (lastNewline < 0) {
          carry = Buffer.from(data);
          continue;
        }
        const text = data.toString('utf8', 0, lastNewline);
        carry = Buffer.from(data.subarray(lastNewline + 1));
        for (const line of text.split('\n')) handleLine(line);
      }
    } finally {
      fs.closeSync(fd);
    }

    if (carry.length > 0) {
      if (suspect) refuseSuspect();
      warnings.push(tornLineWarning(file, carry.length));
    } else if (suspect) {
      warnings.push(tornLineWarning(file, suspect.bytes));
    }
    return { events, warnings, lastSeq };
  }

  /**
   * Seq of the last intact event, read from the end of the file without reading the rest:
   * lets the store check its index against each log cheaply. 0 for a missing or empty log.
   */
  static lastSeq(file: string): number {
    let fd: number;
    try {
      fd = fs.openSync(file, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    try {
      const size = fs.fstatSync(fd).size;
      // A fragment without its newline never counts; past it, one unparsable line may be torn.
      let end = lastNewlineBefore(fd, size) + 1;
      let tornSkipped = false;
      while (end > 0) {
        const start = lastNewlineBefore(fd, end - 1) + 1;
        const text = readRange(fd, start, end - 1).toString('utf8');
        end = start;
        if (isBlank(text)) continue;
        const event = parseEventLine(text);
        if (event) return event.seq;
        // Two bad lines at the end cannot be one torn write: the full read names the line.
        if (tornSkipped) return EventLog.read(file).lastSeq;
        tornSkipped = true;
      }
      return 0;
    } finally {
      fs.closeSync(fd);
    }
  }
}

export function tornLineWarning(file: string, bytes: number): string {
  return `${file}: ignored a torn last line (${bytes} bytes) left by an interrupted write`;
}

function parseEventLine(line: string): RunEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { seq, type, runId } = value as Record<string, unknown>;
  const ok = typeof seq === 'number' && Number.isInteger(seq) && seq > 0 && typeof type === 'string' && typeof runId === 'string';
  return ok ? (value as RunEvent) : undefined;
}

const isBlank = (text: string): boolean => text.length === 0 || text.trim().length === 0;

/** Start of the torn tail to cut off, or undefined when the log ends with a complete event. */
function tornTailStart(fd: number, size: number): number | undefined {
  if (size === 0) return undefined;
  const lastNewline = lastNewlineBefore(fd, size);
  if (lastNewline !== size - 1) return lastNewline + 1;
  let end = size - 1;
  while (end >= 0) {
    const start = lastNewlineBefore(fd, end) + 1;
    const text = readRange(fd, start, end).toString('utf8');
    if (!isBlank(text)) return parseEventLine(text) ? undefined : start;
    end = start - 1;
  }
  return undefined;
}

/** Offset of the last newline in [0, before), or -1; reads backwards in small chunks. */
function lastNewlineBefore(fd: number, before: number): number {
  const chunk = Buffer.allocUnsafe(SCAN_CHUNK);
  let end = before;
  while (end > 0) {
    const start = Math.max(0, end - SCAN_CHUNK);
    const n = readInto(fd, chunk, start, end - start);
    const at = chunk.subarray(0, n).lastIndexOf(NEWLINE);
    if (at >= 0) return start + at;
    end = start;
  }
  return -1;
}

function readRange(fd: number, start: number, end: number): Buffer {
  const buffer = Buffer.allocUnsafe(Math.max(0, end - start));
  const n = readInto(fd, buffer, start, buffer.length);
  return buffer.subarray(0, n);
}

function readInto(fd: number, buffer: Buffer, position: number, length: number): number {
  let done = 0;
  while (done < length) {
    const n = fs.readSync(fd, buffer, done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

function saveTornBytes(file: string, bytes: Buffer): void {
  // Appended, not overwritten: an earlier torn fragment is kept for whoever investigates.
  const fd = fs.openSync(file, 'a');
  try {
    fs.writeSync(fd, bytes);
    if (bytes.at(-1) !== NEWLINE) fs.writeSync(fd, '\n');
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function fsyncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Not every platform can fsync a directory (Windows); the file itself is still fsync'ed.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
