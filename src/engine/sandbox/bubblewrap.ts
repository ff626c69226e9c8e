import { findOnPath } from '../process/findOnPath';
import { runProcess } from '../process/processGroup';

export type BubblewrapProbe = { usable: true; path: string; version: string } | { usable: false; reason: string };

export const BUBBLEWRAP_INSTALL_HINT = 'install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap; Fedora: sudo dnf install bubblewrap; Arch: sudo pacman -S bubblewrap)';

let probe: Promise<BubblewrapProbe> | undefined;

/**
 * Whether bubblewrap can confine processes here, found out once per process by starting a real
 * sandbox with the namespaces the launcher asks for: a machine can have `bwrap` and still refuse it
 * (no unprivileged user namespaces, an AppArmor rule).
 */
export function probeBubblewrap(): Promise<BubblewrapProbe> {
  probe ??= startProbe();
  return probe;
}

async function startProbe(): Promise<BubblewrapProbe> {
  const path = findOnPath('bwrap');
  if (!path) return { usable: false, reason: `bubblewrap (bwrap) is not installed — ${BUBBLEWRAP_INSTALL_HINT}` };
  const version = await runProcess({ command: path, args: ['--version'], cwd: '/', timeoutMs: 10_000 });
  const started = await runProcess({
    command: path,
    // Node by its path: it is surely there (it runs us), whatever PATH holds.
    args: ['--unshare-all', '--die-with-parent', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', process.execPath, '--version'],
    cwd: '/',
    timeoutMs: 10_000,
  });
  if (started.exitCode !== 0) {
    const said = (started.spawnError ?? started.stderr).trim() || `exit ${started.exitCode}`;
    return { usable: false, reason: `bubblewrap cannot start a sandbox here (${said}) — unprivileged user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone, or an AppArmor restriction)` };
  }
  return { usable: true, path, version: version.stdout.trim() || 'bubblewrap' };
}
