import { createServer } from 'node:net';

/** Listens on `port` at 127.0.0.1 (0: any free one) and closes again: the port it got, or null when it was taken. */
function probePort(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(null));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : null;
      server.close(() => resolve(bound));
    });
  });
}

/** Whether a TCP port can be listened on at 127.0.0.1 now (a server on 0.0.0.0 or :: holds it too). */
export async function isPortFree(port: number): Promise<boolean> {
  return (await probePort(port)) !== null;
}

/**
 * Ports this process handed out: two tasks starting at the same moment ask before either records
 * its port, and the system may offer a port again as soon as the probe closes it.
 */
const handedOut = new Set<number>();

/** A port the system hands out as free (listening on port 0), other than those in `taken` or handed out before. */
export async function freePort(taken: ReadonlySet<number> = new Set()): Promise<number> {
  for (let tries = 0; tries < 20; tries += 1) {
    const port = await probePort(0);
    if (port !== null && port > 0 && !taken.has(port) && !handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('no free TCP port found on 127.0.0.1');
}
