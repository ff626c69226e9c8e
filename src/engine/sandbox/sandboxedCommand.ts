import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProgramNeeds } from '../process/launcher';
import { bubblewrapArgs } from './bubblewrapArgs';
import { EgressProxy } from './egressProxy';
import { pathKind, policyFor } from './policyFor';
import { relayEntry } from './relayEntry';
import type { SandboxPolicy } from './sandboxPolicy';
import type { SandboxSettings } from '../domain/sandboxSettings';
import type { TaskProcessRequest } from './taskLauncher';
import { isLoopback, type HostPort } from './hostPort';
import type { RelaySpec } from './relaySpec';

/** Inside the sandbox, where the relay listens for HTTPS_PROXY when no allowed port of the loopback is already this one. */
const PROXY_PORT = 3128;

/** A command ready to start inside bubblewrap: its policy, bubblewrap's arguments, what runs inside and the variables it adds. */
export interface SandboxedCommand {
  policy: SandboxPolicy;
  bubblewrapArgs: string[];
  /** The command, or the relay that starts it once the network inside is set up. */
  argv: string[];
  /** A scratch TMPDIR, and the proxy variables when it reaches a host. */
  env: Record<string, string>;
  /** The hosts it asked for and was refused, so far. */
  blocked(): string[];
}

/**
 * Prepares what every confined start needs around its command (a call, a gate, a person's session):
 * its policy (policyFor.ts), a scratch folder as its TMPDIR and, when the policy reaches a host, an
 * egress proxy outside with a relay inside; hands that to `start`, and removes all of it after. An
 * agent's own state must outlive the call (its sessions, which a resume continues): a folder not
 * there yet is made outside, not left to appear in the sandbox's throw-away home.
 */
export async function withSandboxedCommand<T>(
  settings: SandboxSettings,
  request: TaskProcessRequest,
  how: { command: string[]; home: string | undefined; needs: ProgramNeeds | undefined },
  start: (sandboxed: SandboxedCommand) => Promise<T>,
): Promise<T> {
  for (const dir of how.needs?.writable ?? []) mkdirSync(dir, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), 'taskloom-call-'));
  let control: string | undefined;
  let proxy: EgressProxy | undefined;
  try {
    const policy = policyFor(settings, request, { scratch, home: how.home, needs: how.needs });
    let relay: { argv: string[]; env: Record<string, string> } | undefined;
    if (policy.hosts.length > 0) {
      control = mkdtempSync(join(tmpdir(), 'taskloom-net-'));
      const socket = join(control, 'egress.sock');
      proxy = await EgressProxy.listen(socket, policy.hosts);
      relay = relayFor(socket, policy.hosts, how.command);
      policy.readable.push(relayEntry(), socket);
    }
    return await start({
      policy,
      bubblewrapArgs: bubblewrapArgs(policy, pathKind),
      argv: relay?.argv ?? how.command,
      env: { TMPDIR: scratch, TMP: scratch, TEMP: scratch, ...relay?.env },
      blocked: () => proxy?.blocked ?? [],
    });
  } finally {
    await proxy?.close();
    for (const dir of [scratch, control]) if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

/** The relay's command line and the variables that send HTTPS through it; loopback hosts are forwarded on their own ports. */
function relayFor(socket: string, hosts: readonly HostPort[], command: string[]): { argv: string[]; env: Record<string, string> } {
  const forwards = hosts.filter((h) => isLoopback(h.host));
  let proxyPort = PROXY_PORT;
  while (forwards.some((f) => f.port === proxyPort)) proxyPort++;
  const spec: RelaySpec = { socket, proxyPort, forwards, command };
  const proxyUrl = `http://127.0.0.1:${proxyPort}`;
  const noProxy = 'localhost,127.0.0.1,::1';
  return {
    argv: [process.execPath, relayEntry(), JSON.stringify(spec)],
    env: { HTTPS_PROXY: proxyUrl, https_proxy: proxyUrl, HTTP_PROXY: proxyUrl, http_proxy: proxyUrl, NO_PROXY: noProxy, no_proxy: noProxy },
  };
}
