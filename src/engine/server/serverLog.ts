/**
 * The server's log: stderr, which the language client shows in its output channel (stdout
 * would do too with IPC, but stderr also reaches a terminal when the server is run by hand).
 */
export function serverLog(message: string): void {
  const time = new Date().toISOString().slice(11, 23);
  process.stderr.write(`[${time}] ${message.replace(/\n/g, '\n    ')}\n`);
}
