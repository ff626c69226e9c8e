import { StringDecoder } from 'node:string_decoder';

/**
 * How far a cut moves, at most, to fall on whitespace. Tokens, keys and passwords hold no
 * whitespace, so a cut on whitespace never leaves a piece of a secret that redaction (which
 * runs on the capped text) could no longer recognise. Past this distance (a huge run of
 * non-whitespace) the cut stays where the byte count puts it.
 */
export const CUT_ALIGN_BYTES = 4096;

/**
 * Keeps the first and the last bytes of an output that may be huge. The head shows how a
 * command started and the tail how it failed, which is what a human or an agent needs. Both
 * cuts fall on whitespace where there is some nearby (see CUT_ALIGN_BYTES).
 */
export class CappedOutput {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private head: Buffer[] = [];
  private headBytes = 0;
  /** Set once the head is full (possibly short of headLimit, having been cut back to whitespace). */
  private headClosed = false;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private omittedBytes = 0;
  /** The last byte dropped from the front of the tail: whether the tail starts on a clean cut. */
  private lastOmittedByte = -1;

  constructor(maxBytes: number) {
    this.headLimit = Math.floor(Math.max(0, maxBytes) / 2);
    this.tailLimit = Math.max(0, maxBytes) - this.headLimit;
  }

  append(chunk: Buffer | string): void {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (!this.headClosed) {
      const take = Math.min(this.headLimit - this.headBytes, buf.length);
      this.head.push(buf.subarray(0, take));
      this.headBytes += take;
      buf = buf.subarray(take);
      if (buf.length === 0) return;
      // The head is full and more follows: end it on whitespace, the rest goes to the tail.
      this.headClosed = true;
      const head = Buffer.concat(this.head);
      const end = isWhitespace(buf[0]!) ? head.length : lastWhitespaceEnd(head, CUT_ALIGN_BYTES);
      this.head = [head.subarray(0, end)];
      this.headBytes = end;
      if (end < head.length) buf = Buffer.concat([head.subarray(end), buf]);
    }
    this.tail.push(buf);
    this.tailBytes += buf.length;
    this.trimTail();
  }

  get omitted(): number {
    return this.omittedBytes + this.tailAlignment(Buffer.concat(this.tail));
  }

  toString(): string {
    const head = Buffer.concat(this.head);
    let tail = Buffer.concat(this.tail);
    if (this.omittedBytes === 0) return Buffer.concat([head, tail]).toString('utf8');
    const skip = this.tailAlignment(tail);
    tail = tail.subarray(skip);
    return `${decodeWithoutTrailingPartialChar(head)}\n… ${this.omittedBytes + skip} bytes omitted …\n${decodeWithoutLeadingPartialChar(tail)}`;
  }

  /** Bytes to drop from the front of the tail so that it starts after whitespace (0 when the cut already does). */
  private tailAlignment(tail: Buffer): number {
    if (this.omittedBytes === 0 || this.lastOmittedByte < 0 || isWhitespace(this.lastOmittedByte)) return 0;
    const limit = Math.min(tail.length, CUT_ALIGN_BYTES);
    for (let i = 0; i < limit; i += 1) if (isWhitespace(tail[i]!)) return i + 1;
    return 0;
  }

  private trimTail(): void {
    let excess = this.tailBytes - this.tailLimit;
    while (excess > 0 && this.tail.length > 0) {
      const first = this.tail[0]!;
      if (first.length <= excess) {
        this.lastOmittedByte = first[first.length - 1] ?? this.lastOmittedByte;
        this.tail.shift();
        this.tailBytes -= first.length;
        this.omittedBytes += first.length;
        excess -= first.length;
      } else {
        this.lastOmittedByte = first[excess - 1]!;
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
        this.omittedBytes += excess;
        excess = 0;
      }
    }
  }
}

const isWhitespace = (byte: number): boolean => byte === 0x20 || byte === 0x0a || byte === 0x09 || byte === 0x0d;

/** Length of `buf` up to and including its last whitespace within `within` bytes of the end; all of it when there is none. */
function lastWhitespaceEnd(buf: Buffer, within: number): number {
  for (let i = buf.length - 1; i >= Math.max(0, buf.length - within); i -= 1) if (isWhitespace(buf[i]!)) return i + 1;
  return buf.length;
}

// Without whitespace nearby the cut points fall anywhere, so a multi-byte character may be split: drop its pieces
// rather than print replacement characters.
function decodeWithoutTrailingPartialChar(buf: Buffer): string {
  return new StringDecoder('utf8').write(buf);
}

function decodeWithoutLeadingPartialChar(buf: Buffer): string {
  let start = 0;
  while (start < buf.length && start < 3 && (buf[start]! & 0xc0) === 0x80) start++;
  return buf.subarray(start).toString('utf8');
}
