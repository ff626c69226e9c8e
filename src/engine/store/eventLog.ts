import fs from 'node:fs';
import path from 'node:path';
import type { RunEvent } from '../domain/events';
import { TaskloomError } from '../domain/taskloomError';
import { displayLine } from '../text/terminalText';
import { fsyncDirectory } from '../io/atomicWrite';
import { eventProblems } from './eventSchemas';

/** Why a line is refused. */
export type LogDamage =
  /** Not an event line at all (not JSON, no seq, type or runId), or out of order. */
  | 'unreadable'
  /** A complete event line whose fields are not what its type holds (eventSchemas.ts). */
  | 'malformed';

/**
 * A line that is damaged in a way an interrupted append cannot explain: an unparsable line
 * that is not the last one (an append can only tear the end of the file), or a complete
 * line whose fields are wrong (a torn write never leaves a complete line). We refuse to guess.
 */
export class CorruptLogError extends TaskloomError {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly detail: string,
    readonly damage: LogDamage = 'unreadable',
  ) {
    super(
      'storage',
      `${file}, line ${line}: ${detail}. ` +
        (damage === 'malformed'
          ? 'The line is complete, so no interrupted write left it so: it was changed some other way, and Taskloom will not guess what it said'
          : 'Only the last line can be torn by an interrupted write, so this line was damaged some other way; Taskloom will not guess'),
      'Repair or remove the line by hand.',
    );
    this.name = 'CorruptLogError';
  }
}

/**
 * An event could not be made durable (the disk is full, an I/O error): it was not recorded,
 * and the log was cut back to the end of the last event before it, which are all intact.
 */
export class LogWriteError extends TaskloomError {
  constructor(
    readonly file: string,
    cause: unknown,
  ) {
    super(
      'storage',
      `Could not append an event to ${file}: ${describeWriteFailure(cause)}. The event was not recorded; ` +
        'every event before it is intact in the log',
      'Free some space (or repair the file system), then try again; a run it stopped continues where it stopped once resumed',
      { cause, next: [{ kind: 'resume' }] },
    );
    this.name = 'LogWriteError';
  }
}

function describeWriteFailure(error: unknown): string {
  const err = error as NodeJS.ErrnoException;
  switch (err.code) {
    case 'ENOSPC':
      return 'no space left on device (the disk is full, ENOSPC)';
    case 'EDQUOT':
      return 'the disk quota is used up (EDQUOT)';
    case 'EFBIG':
      return 'the file has reached the size limit of this process or file system (EFBIG)';
    case 'EROFS':
      return 'the file system is read-only (EROFS)';
    case 'EIO':
      return 'an input/output error (EIO)';
    default:
      return err.message ?? String(error);
  }
}

export interface ReadOptions {
  /**
   * Only return events with a larger seq (the tail after a snapshot). Lines at or below it
   * are recognised by their `{"seq":N,` prefix and not parsed, so damage inside them goes
   * unnoticed: the snapshot already covers them.
   */
  afterSeq?: number;
  /**
   * With `afterSeq`: the byte length of the log that seq `afterSeq` ends (a snapshot's
   * `logBytes`). Only the bytes from there on are read. The offset is checked first: the
   * byte before it must end a line, the last event before it must be seq `afterSeq`, and the
   * first event after it `afterSeq + 1`. When it does not fit, nothing is read or delivered
   * and `mismatch` says why (the caller falls back to a read without it).
   */
  fromOffset?: number;
  /**
   * Called with each event in order instead of collecting them in `events` (a replay that
   * keeps no copy of the log). What it throws aborts the read and reaches the caller.
   */
  onEvent?: (event: RunEvent) => void;
  /**
   * Only these events (by seq) are wanted: other lines are recognised by their `{"seq":N,`
   * prefix and not parsed (as lines under `afterSeq` are), and the read ends after the last of
   * them. For looking up a few events of a long log.
   */
  seqs?: ReadonlySet<number>;
}

export interface ReadResult {
  /** The events read, unless `onEvent` took them. */
  events: RunEvent[];
  warnings: string[];
  /** Seq of the last intact event in the whole file (0 when there is none), whatever `afterSeq` skipped. */
  lastSeq: number;
  /**
   * Bytes of the file up to the end of the last intact line (a torn last line excluded): what
   * a snapshot at `lastSeq` records as its `logBytes`.
   */
  endOffset: number;
  /** Set when `fromOffset` does not fit the log; then nothing was read. */
  mismatch?: string;
}

const NEWLINE = 0x0a;
const READ_CHUNK = 16 * 1024 * 1024;
const SCAN_CHUNK = 64 * 1024;
const FIRST_SCAN_CHUNK = 4 * 1024;
// The store writes `seq` first, so lines covered by a snapshot are skipped without JSON.parse.
const SEQ_PREFIX = /^\{"seq":(\d+),/;

/** Thrown out of a read when the first event after `fromOffset` is not the one expected. */
class OffsetMismatch {
  constructor(readonly reason: string) {}
}

/** Thrown out of a read with `seqs` once the last of them was read. */
class ReadDone {}

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
    private bytes: number,
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

  /** Appends one event as one line and returns once it is on disk; LogWriteError when it cannot be. */
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
        fs.ftruncateSync(fd, this.bytes);
      } catch {
        // The original error is the one worth reporting; the next open cuts a torn line off.
      }
      throw new LogWriteError(this.file, error);
    }
    this.bytes += bytes.length;
  }

  /** The log's length in bytes, every line complete: where the next event goes (a snapshot's `logBytes`). */
  get size(): number {
    return this.bytes;
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
   * Reads the log once, in large chunks: the whole of it, or from `fromOffset` on. A torn
   * last line is ignored with a warning; an unparsable line anywhere else, a seq that does
   * not increase, or an event handed on whose fields are wrong (wherever it is: a complete line
   * is no torn write) throws CorruptLogError. A missing file reads as empty.
   */
  static read(file: string, options: ReadOptions = {}): ReadResult {
    const afterSeq = options.afterSeq ?? 0;
    const fromOffset = options.fromOffset;
    if (fromOffset !== undefined && !(Number.isSafeInteger(fromOffset) && fromOffset >= 0)) {
      throw new Error(`fromOffset must be a byte offset, not ${String(fromOffset)}`);
    }
    const onEvent = options.onEvent;
    const wanted = options.seqs;
    const lastWanted = wanted ? Math.max(0, ...wanted) : Infinity;
    let fd: number;
    try {
      fd = fs.openSync(file, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      const empty: ReadResult = { events: [], warnings: [], lastSeq: 0, endOffset: 0 };
      return fromOffset === undefined ? empty : { ...empty, mismatch: 'the log does not exist' };
    }
    const events: RunEvent[] = [];
    const warnings: string[] = [];
    let lastSeq = 0;
    let endOffset = 0;
    // Line numbers count from `fromOffset`; an error message adds the lines before it.
    let lineNo = 0;
    let lineBase = 0;
    // The first event after `fromOffset` must be afterSeq + 1, or the offset belongs to another log.
    let expectFirst: number | undefined;
    // An unparsable line is only acceptable as the very last one, so judgement waits for the next line.
    let suspect: { line: number; bytes: number } | undefined;
    const corrupt = (line: number, detail: string, damage?: LogDamage): CorruptLogError => {
      if (fromOffset !== undefined && fromOffset > 0 && lineBase === 0) lineBase = countNewlines(fd, fromOffset);
      return new CorruptLogError(file, lineBase + line, detail, damage);
    };
    const refuseSuspect = (): never => {
      throw corrupt(suspect!.line, 'not a valid event line');
    };
    const takeSeq = (seq: number): void => {
      if (seq <= lastSeq) throw corrupt(lineNo, `seq ${seq} does not follow seq ${lastSeq}`);
      lastSeq = seq;
    };
    /** Handles the line in `data[start, end)`; false when it cannot be parsed (it may be a torn last line). */
    const handleLine = (data: Buffer, start: number, end: number): boolean => {
      lineNo += 1;
      if ((afterSeq > 0 || wanted) && expectFirst === undefined) {
        const seq = seqPrefix(data, start, end);
        if (seq !== undefined && (seq <= afterSeq || (wanted !== undefined && !wanted.has(seq)))) {
          if (suspect) refuseSuspect();
          takeSeq(seq);
          if (seq > lastWanted) throw new ReadDone();
          return true;
        }
      }
      // Decoded line by line: most lines are ASCII and decode to compact one-byte strings,
      // which a decode of the whole chunk would not give as soon as one line is not.
      const line = data.toString('utf8', start, end);
      const event = parseEventLine(line);
      if (!event) {
        if (isBlank(line)) return true;
        if (suspect) refuseSuspect();
        suspect = { line: lineNo, bytes: end - start + 1 };
        return false;
      }
      if (suspect) refuseSuspect();
      if (expectFirst !== undefined) {
        if (event.seq !== expectFirst) {
          throw new OffsetMismatch(`the first event after byte ${fromOffset} is seq ${event.seq}, not ${expectFirst}`);
        }
        expectFirst = undefined;
      }
      takeSeq(event.seq);
      if (event.seq > afterSeq && (wanted === undefined || wanted.has(event.seq))) {
        const problems = eventProblems(event);
        if (problems) throw corrupt(lineNo, `event ${event.seq} (${displayLine(event.type, 60)}) is malformed: ${problems.join('; ')}`, 'malformed');
        if (onEvent) onEvent(event);
        else events.push(event);
      }
      if (event.seq >= lastWanted) throw new ReadDone();
      return true;
    };

    let carry: Buffer = Buffer.alloc(0);
    try {
      const size = fs.fstatSync(fd).size;
      let position = 0;
      if (fromOffset !== undefined) {
        const problem = offsetProblem(fd, size, fromOffset, afterSeq);
        if (problem !== undefined) return { events: [], warnings: [], lastSeq: 0, endOffset: 0, mismatch: problem };
        position = fromOffset;
        lastSeq = afterSeq;
        endOffset = fromOffset;
        expectFirst = afterSeq + 1;
      }
      // Sized to what is there (a tail is often small), but not so small that a log still growing is read in crumbs.
      const buffer = Buffer.allocUnsafe(Math.min(READ_CHUNK, Math.max(SCAN_CHUNK, size - position)));
      for (;;) {
        const n = fs.readSync(fd, buffer, 0, buffer.length, position);
        if (n === 0) break;
        const dataStart = position - carry.length;
        position += n;
        const data = carry.length > 0 ? Buffer.concat([carry, buffer.subarray(0, n)]) : buffer.subarray(0, n);
        let at = 0;
        for (let newline = data.indexOf(NEWLINE); newline >= 0; newline = data.indexOf(NEWLINE, at)) {
          // A line that may be torn ends the intact part of the log where it starts.
          if (!handleLine(data, at, newline)) endOffset = dataStart + at;
          at = newline + 1;
        }
        if (!suspect) endOffset = dataStart + at;
        // `buffer` is reused by the next read, so what is kept must be copied out of it.
        carry = Buffer.from(data.subarray(at));
      }
      if (carry.length > 0) {
        if (suspect) refuseSuspect();
        warnings.push(tornLineWarning(file, carry.length));
      } else if (suspect) {
        warnings.push(tornLineWarning(file, suspect.bytes));
      }
    } catch (error) {
      // Every wanted event was read: the rest of the log is not (so lastSeq and endOffset stop there).
      if (error instanceof ReadDone) return { events, warnings, lastSeq, endOffset };
      if (!(error instanceof OffsetMismatch)) throw error;
      return { events: [], warnings: [], lastSeq: 0, endOffset: 0, mismatch: error.reason };
    } finally {
      fs.closeSync(fd);
    }
    return { events, warnings, lastSeq, endOffset };
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

/**
 * Why `offset` cannot be where the line after seq `seq` starts, or undefined when it can: it
 * must end a line, and the last event line before it must hold `seq`.
 */
function offsetProblem(fd: number, size: number, offset: number, seq: number): string | undefined {
  if (offset > size) return `the log is only ${size} bytes long, not ${offset}`;
  if (offset === 0) return 'no event ends at byte 0';
  const before = Buffer.alloc(1);
  if (readInto(fd, before, offset - 1, 1) !== 1 || before[0] !== NEWLINE) return `byte ${offset} is not the start of a line`;
  let end = offset - 1;
  while (end > 0) {
    const start = lastNewlineBefore(fd, end) + 1;
    const text = readRange(fd, start, end).toString('utf8');
    end = start - 1;
    if (isBlank(text)) continue;
    const prefix = SEQ_PREFIX.exec(text);
    const found = prefix ? Number(prefix[1]) : parseEventLine(text)?.seq;
    if (found === undefined) return `the line before byte ${offset} is not an event`;
    return found === seq ? undefined : `the event before byte ${offset} is seq ${found}, not ${seq}`;
  }
  return `no event comes before byte ${offset}`;
}

const SEQ_PREFIX_BYTES = Buffer.from('{"seq":');
const COMMA = 0x2c;

/** N from a line starting `{"seq":N,` (how the store writes every line), without decoding it. */
function seqPrefix(data: Buffer, start: number, end: number): number | undefined {
  const digits = start + SEQ_PREFIX_BYTES.length;
  if (end <= digits || data.compare(SEQ_PREFIX_BYTES, 0, SEQ_PREFIX_BYTES.length, start, digits) !== 0) return undefined;
  let seq = 0;
  for (let i = digits; i < end && i < digits + 16; i += 1) {
    const byte = data[i]!;
    if (byte === COMMA) return i > digits ? seq : undefined;
    if (byte < 0x30 || byte > 0x39) return undefined;
    seq = seq * 10 + (byte - 0x30);
  }
  return undefined;
}

/** Newlines in [0, end): the line number an error after `end` is counted from. */
function countNewlines(fd: number, end: number): number {
  const chunk = Buffer.allocUnsafe(Math.min(READ_CHUNK, end));
  let count = 0;
  for (let at = 0; at < end; ) {
    const n = readInto(fd, chunk, at, Math.min(chunk.length, end - at));
    if (n === 0) break;
    for (let i = chunk.indexOf(NEWLINE); i >= 0 && i < n; i = chunk.indexOf(NEWLINE, i + 1)) count += 1;
    at += n;
  }
  return count;
}

/**
 * Offset of the last newline in [0, before), or -1; reads backwards in small chunks (4 KiB
 * first, most lines are shorter, then growing to SCAN_CHUNK).
 */
function lastNewlineBefore(fd: number, before: number): number {
  const chunk = Buffer.allocUnsafe(Math.min(SCAN_CHUNK, Math.max(before, 1)));
  let size = FIRST_SCAN_CHUNK;
  let end = before;
  while (end > 0) {
    const start = Math.max(0, end - Math.min(size, chunk.length));
    const n = readInto(fd, chunk, start, end - start);
    const at = chunk.subarray(0, n).lastIndexOf(NEWLINE);
    if (at >= 0) return start + at;
    end = start;
    size *= 2;
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
