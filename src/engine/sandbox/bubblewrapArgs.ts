import { isAbsolute, relative, sep } from 'node:path';
import { SYSTEM_READ_PATHS, type SandboxPolicy } from './sandboxPolicy';

/** What is at a path outside the sandbox: decides how it is shown inside. */
export type PathKind = { kind: 'dir' } | { kind: 'file' } | { kind: 'symlink'; target: string } | { kind: 'missing' };

type Mount = { path: string; args: string[] };

const depth = (path: string): number => path.split(sep).filter(Boolean).length;
/** `path` is `root` or lies below it. */
export const isWithin = (path: string, root: string): boolean => {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * bubblewrap's arguments for a policy (the command follows them). Every namespace is new: the
 * process sees no other process (PID), has only its own loopback (net), and dies with its parent.
 * The root is empty but for what the policy names; a deeper mount goes on top of a shallower one,
 * so the checkout can be writable inside a read-only parent and a secret hidden inside either.
 * `--json-status-fd 3` tells the launcher whether the sandbox started at all.
 */
export function bubblewrapArgs(policy: SandboxPolicy, kindOf: (path: string) => PathKind): string[] {
  const mounts: Mount[] = [];
  for (const path of SYSTEM_READ_PATHS) {
    const found = kindOf(path);
    if (found.kind === 'symlink') mounts.push({ path, args: ['--symlink', found.target, path] });
    else if (found.kind === 'dir') mounts.push({ path, args: ['--ro-bind', path, path] });
  }
  mounts.push({ path: '/tmp', args: ['--tmpfs', '/tmp'] }, { path: '/var/tmp', args: ['--tmpfs', '/var/tmp'] });
  if (policy.home && policy.home !== '/') mounts.push({ path: policy.home, args: ['--tmpfs', policy.home] });
  for (const path of policy.readable) if (kindOf(path).kind !== 'missing') mounts.push({ path, args: ['--ro-bind', path, path] });
  for (const path of policy.writable) if (kindOf(path).kind !== 'missing') mounts.push({ path, args: ['--bind', path, path] });
  // Stable: of two mounts at one depth, the later (writable after readable) wins.
  mounts.sort((a, b) => depth(a.path) - depth(b.path));

  const visible = mounts.filter((m) => m.args[0] !== '--symlink').map((m) => m.path);
  const hidden = policy.hidden.flatMap((path) => {
    if (!visible.some((root) => isWithin(path, root))) return [];
    const found = kindOf(path);
    if (found.kind === 'dir') return ['--tmpfs', path, '--remount-ro', path];
    // Callers name hidden paths by their real path, so a symlink here leads nowhere: nothing to hide.
    return found.kind === 'file' ? ['--ro-bind', '/dev/null', path] : [];
  });

  return [
    '--unshare-all',
    '--die-with-parent',
    // Root outside keeps no capability inside (an unprivileged user has none to drop).
    '--cap-drop',
    'ALL',
    '--json-status-fd',
    '3',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    ...mounts.flatMap((m) => m.args),
    ...hidden,
    '--chdir',
    policy.cwd,
  ];
}
