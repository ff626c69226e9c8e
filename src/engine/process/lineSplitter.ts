/**
 * Turns a stream of text chunks into whole lines. Agents print JSON lines, and a pipe hands
 * them over in arbitrary pieces: a line can arrive split across chunks or several at once.
 */
export class LineSplitter {
  private pending = '';

  /** Feeds a chunk; returns the lines it completed, without their line endings. */
  push(chunk: string): string[] {
    const text = this.pending + chunk;
    const parts = text.split('\n');
    this.pending = parts.pop() ?? '';
    return parts.map(stripCarriageReturn);
  }

  /** The unterminated last line, if any: a process may exit without a final newline. */
  end(): string[] {
    const rest = this.pending;
    this.pending = '';
    return rest === '' ? [] : [stripCarriageReturn(rest)];
  }
}

const stripCarriageReturn = (line: string): string => (line.endsWith('\r') ? line.slice(0, -1) : line);
