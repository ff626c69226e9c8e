import { randomUUID } from 'node:crypto';
import type { LiveMessage, LiveMessages } from '../runner';
import type { ClaudeStreamState } from './claudeStreamParser';

/**
 * The stdin of one `claude -p --input-format stream-json` call, as lines: the prompt as the first
 * user message, then each message a person sends while claude works (RunnerInput.messages).
 * Claude takes a message written mid-turn into the turn under way, with the next tool result, and
 * echoes it then (--replay-user-messages): that echo, not the write, is the delivery. stdin stays
 * open until claude has answered every message it took (a result line after the last echo), then
 * closes, and claude exits; a message that arrives after that waits for the task's next turn.
 */
export class ClaudeConversation implements AsyncIterable<string> {
  private readonly lines: string[] = [];
  /** Written and not yet echoed, by the id they were written with. */
  private readonly unechoed = new Map<string, LiveMessage | undefined>();
  private wake: (() => void) | undefined;
  private closed = false;
  private readonly unsubscribe: () => void;
  private seen = { replays: 0, results: 0 };

  constructor(prompt: string, private readonly messages: LiveMessages | undefined) {
    this.write(randomUUID(), prompt, undefined);
    this.unsubscribe = messages?.subscribe((message) => this.write(message.id, message.text, message)) ?? (() => undefined);
  }

  /** Reads the parser's state after each line of claude's output; true once stdin was closed (the call is over at its result). */
  heard(state: Pick<ClaudeStreamState, 'replays' | 'lastReplay' | 'resultCount'>): boolean {
    if (state.replays > this.seen.replays && state.lastReplay !== undefined && this.unechoed.has(state.lastReplay)) {
      const message = this.unechoed.get(state.lastReplay);
      this.unechoed.delete(state.lastReplay);
      if (message) this.messages?.delivered(message);
    }
    const answered = state.resultCount > this.seen.results && this.unechoed.size === 0;
    this.seen = { replays: state.replays, results: state.resultCount };
    if (answered) this.close();
    return this.closed;
  }

  /** Ends stdin; messages not yet echoed were not delivered, and wait for the next turn. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<string> {
    for (;;) {
      while (this.lines.length > 0) yield this.lines.shift()!;
      if (this.closed) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }

  private write(id: string, text: string, message: LiveMessage | undefined): void {
    if (this.closed || this.unechoed.has(id)) return;
    this.unechoed.set(id, message);
    this.lines.push(`${JSON.stringify({ type: 'user', uuid: id, session_id: '', parent_tool_use_id: null, message: { role: 'user', content: [{ type: 'text', text }] } })}\n`);
    this.wake?.();
  }
}
