/** Where the server's log lines go once the connection listens: the editor's log at the line's level. */
export interface LogSink {
  info(message: string): void;
  error(message: string): void;
}

/**
 * The server's log. Through the connection (window/logMessage) the editor's output channel
 * shows each line at its own level; the process's stderr, which the language client shows as
 * errors whatever they say, is only the fallback while there is no connection (and reaches a
 * terminal when the server is run by hand).
 */
export class ServerLog {
  private sink: LogSink | undefined;

  /** From now on, lines go through `sink`. */
  connect(sink: LogSink): void {
    this.sink = sink;
  }

  readonly info = (message: string): void => this.write('info', message);
  readonly error = (message: string): void => this.write('error', message);

  private write(level: keyof LogSink, message: string): void {
    if (this.sink) {
      try {
        this.sink[level](message);
        return;
      } catch {
        // The connection is gone (the editor went away): stderr still reaches whoever listens.
      }
    }
    const time = new Date().toISOString().slice(11, 23);
    process.stderr.write(`[${time}] ${level === 'error' ? 'error: ' : ''}${message.replace(/\n/g, '\n    ')}\n`);
  }
}
