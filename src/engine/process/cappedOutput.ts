import { StringDecoder } from 'node:string_decoder';

/**
 * Keeps the first and the last bytes of an output that may be huge. The head shows how a
 * command started and the tail how it failed, which is what a human or an agent needs.
 */
export class CappedOutput {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private omittedBytes = 0;

  constructor(maxBytes: number) {
    this.headLimit = Math.floor(Math.max(0, maxBytes) / 2);
    this.tailLimit = Math.max(0, maxBytes) - this.headLimit;
  }

  append(chunk: Buffer | string): void {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (this.headBytes < this.headLimit) {
      const take = Math.min(this.headLimit - this.headBytes, buf.length);
      this.head.push(buf.subarray(0, take));
      this.headBytes += take;
      buf = buf.subarray(take);
    }
    if (buf.length === 0) return;
    this.tail.push(buf);
    this.tailBytes += buf.length;
    this.trimTail();
  }

  get omitted(): number {
    return this.omittedBytes;
  }

  toString(): string {
    const head = Buffer.concat(this.head);
    const tail = Buffer.concat(this.tail);
    if (this.omittedBytes === 0) return Buffer.concat([head, tail]).toString('utf8');
    return `${decodeWithoutTrailingPartialChar(head)}\n… ${this.omittedBytes} bytes omitted …\n${decodeWithoutLeadingPartialChar(tail)}`;
  }

  private trimTail(): void {
    let excess = this.tailBytes - this.tailLimit;
    while (excess > 0 && this.tail.length > 0) {
      const first = this.tail[0]!;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
        this.omittedBytes += first.length;
        excess -= first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
        this.omittedBytes += excess;
        excess = 0;
      }
    }
  }
}

// The cut points fall anywhere, so a multi-byte character may be split: drop its pieces
// rather than print replacement characters.
function decodeWithoutTrailingPartialChar(buf: Buffer): string {
  return new StringDecoder('utf8').write(buf);
}

function decodeWithoutLeadingPartialChar(buf: Buffer): string {
  let start = 0;
  while (start < buf.length && start < 3 && (buf[start]! & 0xc0) === 0x80) start++;
  return buf.subarray(start).toString('utf8');
}
