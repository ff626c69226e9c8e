import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * Listens on 127.0.0.1 (a free port) and returns a close that also ends open connections:
 * scripted servers keep hanging streams open on purpose, which would stop a plain close.
 */
export async function listenOnLoopback(server: Server): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
