import { lstatSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import type { SandboxSettings } from '../domain/sandboxSettings';
import type { ProgramNeeds } from '../process/launcher';
import { isWithin, type PathKind } from './bubblewrapArgs';
import { parseHostPort, uniqueHostPorts, type HostPort } from './hostPort';
import type { SandboxPolicy } from './sandboxPolicy';
import type { TaskProcessRequest } from './taskLauncher';

export interface PolicyFacts {
  /** The call's own scratch folder: its TMPDIR, writable, removed after it. */
  scratch: string;
  /** The home folder the process is told about (HOME), private and empty inside. */
  home?: string;
  needs?: ProgramNeeds;
  /** PATH of the process: its folders are programs, readable. */
  path?: string;
}

/**
 * The policy of one process start (see SandboxPolicy): the system and toolchains read-only; the
 * checkout writable for a role that writes, read-only for one that reads, with its `.git` pointer
 * and the repository's git dir read-only either way; nothing else of the repository (its main
 * checkout's untracked files, other worktrees, `.taskloom/`); the secrets hidden wherever they
 * would show; hosts by role: gates `gateHosts`, setup also `setupHosts`, an agent its model API
 * and `allowedHosts`.
 */
export function policyFor(settings: SandboxSettings, request: TaskProcessRequest, facts: PolicyFacts): SandboxPolicy {
  const home = facts.home && isAbsolute(facts.home) ? facts.home : homedir();
  const expand = (path: string) => real(path.startsWith('~/') ? join(home, path.slice(2)) : path === '~' ? home : path);
  const checkout = real(request.checkout);
  const gitPointer = join(checkout, '.git');
  const commonDir = gitCommonDirOf(checkout);

  const readable = [
    ...settings.readPaths.map(expand),
    ...programFolders(facts.path ?? process.env.PATH ?? '', commonDir ? dirname(commonDir) : checkout),
    nodeInstallation(),
    ...(facts.needs?.readable ?? []).map(real),
    ...(commonDir ? [commonDir] : []),
    ...(request.writes ? [] : [checkout]),
    ...(pathKind(gitPointer).kind === 'file' ? [gitPointer] : []),
  ];
  const writable = [facts.scratch, ...(request.writes ? [checkout] : []), ...[...(facts.needs?.writable ?? []), ...(facts.needs?.writableFiles ?? [])].map(real)];
  const hidden = [...settings.hiddenPaths.map(expand), ...(request.hideInCheckout ?? []).map((p) => real(resolve(checkout, p)))];
  return { role: request.role, cwd: checkout, writable, readable: [...new Set(readable)], hidden, home, hosts: hostsFor(settings, request, facts.needs) };
}

function hostsFor(settings: SandboxSettings, request: TaskProcessRequest, needs: ProgramNeeds | undefined): HostPort[] {
  const names =
    request.role === 'gate'
      ? settings.gateHosts
      : request.role === 'setup'
        ? [...settings.setupHosts, ...settings.gateHosts]
        : [...(needs?.hosts ?? []), ...settings.allowedHosts];
  return uniqueHostPorts(names.map(parseHostPort).filter((h): h is HostPort => h !== null));
}

/**
 * The repository's common git dir, read from the checkout's `.git` pointer file (`gitdir: …` and
 * that folder's `commondir`), or the checkout's own `.git` folder for a main checkout.
 */
function gitCommonDirOf(checkout: string): string | undefined {
  const pointer = join(checkout, '.git');
  const kind = pathKind(pointer).kind;
  if (kind === 'dir') return pointer;
  if (kind !== 'file') return undefined;
  const gitDir = /^gitdir: (.+)$/m.exec(readText(pointer))?.[1]?.trim();
  if (!gitDir) return undefined;
  const absoluteGitDir = resolve(checkout, gitDir);
  const common = readText(join(absoluteGitDir, 'commondir')).trim();
  return real(common ? resolve(absoluteGitDir, common) : absoluteGitDir);
}

/** PATH's folders: programs, readable; except those inside the repository, which are its files, not the machine's programs. */
function programFolders(path: string, repoRoot: string): string[] {
  return path
    .split(delimiter)
    .filter((dir) => isAbsolute(dir) && dir !== '/')
    .map(real)
    .filter((dir) => !isWithin(dir, repoRoot));
}

/** The Node that runs Taskloom (and the scripted agent and relay): its whole installation. */
const nodeInstallation = (): string => dirname(dirname(real(process.execPath)));

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

export function pathKind(path: string): PathKind {
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return { kind: 'symlink', target: readlinkSync(path) };
    return stat.isDirectory() ? { kind: 'dir' } : { kind: 'file' };
  } catch {
    return { kind: 'missing' };
  }
}
