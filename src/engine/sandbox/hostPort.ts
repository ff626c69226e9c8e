/** One place a sandboxed process may connect to: a host name or address and a port, both exact. */
export interface HostPort {
  host: string;
  port: number;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);

/** `host:port`, `[v6]:port`; null when it is not one (a missing or bad port, an empty host). */
export function parseHostPort(text: string): HostPort | null {
  const match = /^\s*(?:\[([^\]]+)\]|([^\s:[\]]+)):(\d{1,5})\s*$/.exec(text);
  if (!match) return null;
  const port = Number(match[3]);
  const host = (match[1] ?? match[2])!.toLowerCase();
  return port >= 1 && port <= 65535 ? { host, port } : null;
}

/** The host and port a base URL connects to (its scheme's default port when it names none); null for anything else. */
export function hostPortOfUrl(url: string | undefined): HostPort | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
    const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    const port = parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
    return host ? { host, port } : null;
  } catch {
    return null;
  }
}

export const formatHostPort = ({ host, port }: HostPort): string => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/** This machine's loopback: reached from inside the sandbox by a forward of the same port, not through the proxy. */
export const isLoopback = (host: string): boolean => LOOPBACK_NAMES.has(host) || host.startsWith('127.');

export function sameHostPort(a: HostPort, b: HostPort): boolean {
  return a.port === b.port && (a.host === b.host || (isLoopback(a.host) && isLoopback(b.host)));
}

/** Each host once, in the order given. */
export function uniqueHostPorts(list: readonly HostPort[]): HostPort[] {
  const seen: HostPort[] = [];
  for (const entry of list) if (!seen.some((s) => sameHostPort(s, entry))) seen.push(entry);
  return seen;
}
