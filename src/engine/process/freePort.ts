import { createServer } from 'node:net';

/** Whether a TCP port can be listened on at 127.0.0.1 now (a server on 0.0.0.0 or :: holds it too). */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * Ports this process handed out: two tasks starting at the same moment ask before either records
 * its port, and the system may offer a port again as soon as the probe closes it.
 */
const handedOut = new Set<number>();

/** A port the system hands out as free (listening on port 0), other than those in `taken` or handed out before. */
export async function freePort(taken: ReadonlySet<number> = new Set()): Promise<number> {
  for (let tries = 0; tries < 20; tries += 1) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.unref();
      server.once('error', reject);
      server.listen({ port: 0, host: '127.0.0.1', exclusive: true }, () => {
        const address = server.address();
        const chosen = typeof address === 'object' && address ? address.port : 0;
        server.close(() => resolve(chosen));
      });
    });
    if (port > 0 && !taken.has(port) && !handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('no free TCP port found on 127.0.0.1');
}
