// The first process inside a sandbox that may reach the network (bundled as dist/sandbox-relay.js):
// it opens the listeners of relaySpec.ts on the sandbox's own loopback, then runs the command and
// exits as it does. Plain Node and nothing else: it starts once per agent call. It starts the
// command itself, not through the process layer: it is already inside the sandbox the launcher made.
import { spawn } from 'node:child_process';
import { connect, createServer, type Socket } from 'node:net';
import type { RelaySpec } from './relaySpec';

/** Like a shell's exit for a command it could not run: the command never started. */
const RELAY_FAILED_EXIT = 125;

const spec = JSON.parse(process.argv[2] ?? '{}') as RelaySpec;

function fail(message: string): never {
  process.stderr.write(`taskloom sandbox relay: ${message}\n`);
  process.exit(RELAY_FAILED_EXIT);
}

/** Joins a local connection to the proxy outside, first asking it for `target` when the connection is a forward. */
function relay(local: Socket, target?: { host: string; port: number }): void {
  const upstream = connect(spec.socket);
  const close = () => {
    local.destroy();
    upstream.destroy();
  };
  local.on('error', close);
  upstream.on('error', close);
  if (!target) {
    local.pipe(upstream).pipe(local);
    return;
  }
  local.pause();
  upstream.write(`CONNECT ${target.host}:${target.port} HTTP/1.1\r\nHost: ${target.host}:${target.port}\r\n\r\n`);
  let head = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    upstream.off('data', onData);
    if (!/^HTTP\/1\.[01] 200/.test(head.subarray(0, end).toString('latin1'))) return close();
    const rest = head.subarray(end + 4);
    if (rest.length > 0) local.write(rest);
    local.pipe(upstream).pipe(local);
    local.resume();
  };
  upstream.on('data', onData);
}

function listen(port: number, onConnection: (socket: Socket) => void): Promise<void> {
  return new Promise((resolve) => {
    const server = createServer(onConnection);
    server.once('error', (error) => fail(`cannot listen on 127.0.0.1:${port} inside the sandbox: ${error.message}`));
    server.listen(port, '127.0.0.1', () => {
      server.unref();
      resolve();
    });
  });
}

async function main(): Promise<void> {
  const [command, ...args] = spec.command;
  if (!command || !spec.socket) fail('no command or socket given');
  await listen(spec.proxyPort, (socket) => relay(socket));
  await Promise.all(spec.forwards.map((target) => listen(target.port, (socket) => relay(socket, target))));
  const child = spawn(command, args, { stdio: 'inherit' });
  child.once('error', (error) => fail(`cannot start ${command}: ${error.message}`));
  // The command is in this process group and gets the group's signals itself: the relay waits for it.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => undefined);
  child.once('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
}

void main();
