/**
 * What the relay inside a sandbox (sandboxRelayMain.ts) is told: the one way out of the sandbox's
 * network namespace is `socket`, a Unix socket to the egress proxy outside, which lets through only
 * the allowed hosts. Inside, `proxyPort` on the loopback speaks HTTP CONNECT to it (HTTPS_PROXY),
 * and each of `forwards` (an allowed port of this machine's loopback) listens on the same port
 * inside, so that `http://127.0.0.1:PORT` means the same inside as outside.
 */
export interface RelaySpec {
  socket: string;
  proxyPort: number;
  forwards: Array<{ host: string; port: number }>;
  command: string[];
}
