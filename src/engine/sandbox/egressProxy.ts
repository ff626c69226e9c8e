import { connect, createServer, type Server, type Socket } from 'node:net';
import { formatHostPort, parseHostPort, sameHostPort, type HostPort } from './hostPort';

const MAX_HEAD_BYTES = 8 * 1024;

/**
 * The only way out of a sandbox's network namespace: an HTTP CONNECT proxy on a Unix socket that
 * the sandbox's relay reaches. It opens a connection only to a `host:port` on the list, exactly;
 * names are resolved here, outside, so the sandbox needs no DNS. Whatever it refuses is counted in
 * `blocked`, for the step's record.
 */
export class EgressProxy {
  readonly blocked: string[] = [];
  private readonly server: Server;
  private readonly open = new Set<Socket>();

  private constructor(private readonly allowed: readonly HostPort[]) {
    this.server = createServer((socket) => this.accept(socket));
  }

  static async listen(socketPath: string, allowed: readonly HostPort[]): Promise<EgressProxy> {
    const proxy = new EgressProxy(allowed);
    await new Promise<void>((resolve, reject) => {
      proxy.server.once('error', reject);
      proxy.server.listen(socketPath, () => resolve());
    });
    return proxy;
  }

  close(): Promise<void> {
    for (const socket of this.open) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private track(socket: Socket): void {
    this.open.add(socket);
    socket.once('close', () => this.open.delete(socket));
    socket.on('error', () => socket.destroy());
  }

  private accept(client: Socket): void {
    this.track(client);
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > MAX_HEAD_BYTES) client.end('HTTP/1.1 431 Request Header Fields Too Large\r\n\r\n');
        return;
      }
      client.off('data', onData);
      client.pause();
      this.route(client, head.subarray(0, end).toString('latin1'), head.subarray(end + 4));
    };
    client.on('data', onData);
  }

  private route(client: Socket, head: string, rest: Buffer): void {
    const [method, target] = head.split('\r\n', 1)[0]!.split(' ');
    if (method !== 'CONNECT') {
      client.end('HTTP/1.1 405 Method Not Allowed\r\nContent-Type: text/plain\r\n\r\nThe Taskloom sandbox proxies HTTPS (CONNECT) only.\n');
      return;
    }
    const wanted = parseHostPort(target ?? '');
    if (!wanted || !this.allowed.some((entry) => sameHostPort(entry, wanted))) {
      const named = wanted ? formatHostPort(wanted) : String(target);
      if (!this.blocked.includes(named)) this.blocked.push(named);
      client.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n\r\nThe Taskloom sandbox does not allow ${named}.\n`);
      return;
    }
    const upstream = connect(wanted.port, wanted.host);
    this.track(upstream);
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (rest.length > 0) upstream.write(rest);
      client.pipe(upstream).pipe(client);
      client.resume();
    });
    upstream.once('error', () => {
      if (!client.destroyed) client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
    });
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  }
}
