import { chmodSync, mkdtempSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { ownGitDirs } from './worktreeFiles';

// An agent can write the repository's git directory (`.git/hooks`, `.git/config`, a worktree's
// `config.worktree`, and any file those `include`). Every program named there would run, unconfined,
// inside Taskloom's own git: a hook when Taskloom commits or merges, fsmonitor at `status`, a filter
// at `add` or checkout, a merge driver in the merge queue. So Taskloom's git runs none of them: what
// git takes from a fixed key is switched off for every command, and what the repository's config
// names (drivers, helpers) is read once per change of its config files and overridden with `-c`.
// The user's global and system config are not the agent's to write: their programs (git-lfs's
// filter, a credential helper, a signing program) are kept.

/**
 * Programs git takes from fixed keys. Verified against git 2.39:
 * - `core.hooksPath` to an empty folder: no hook runs (`/dev/null` works too in 2.39, but it is a
 *   file where git expects a folder, and older gits have treated that path differently).
 * - `diff.external=` (empty): a diff that would run the external program fails ("cannot run") instead;
 *   every diff Taskloom reads passes `--no-ext-diff --no-textconv`, which ignore it.
 * - `protocol.ext.allow=never`: an `ext::` remote (a shell command as a URL) is refused, whatever
 *   `protocol.allow` the repository sets.
 * An editor and a pager never start: git opens neither when its output is not a terminal, and
 * every commit Taskloom makes has its message. `uploadpack.packObjectsHook` is honoured by git
 * only from the user's and the system's config.
 */
export function withoutProgramsConfig(): string[] {
  return [`core.hooksPath=${emptyHooksDir()}`, 'core.fsmonitor=false', 'diff.external=', 'protocol.ext.allow=never'];
}

/** Keys naming a program, as `git config --get-regexp` spells them (section and key lowercase). */
export const PROGRAM_KEYS =
  '^(filter\\..+\\.(clean|smudge|process)|merge\\..+\\.driver|diff\\..+\\.(command|textconv)' +
  '|core\\.(sshcommand|askpass|alternaterefscommand)|credential\\.(.+\\.)?helper' +
  '|gpg\\.((openpgp|x509|ssh)\\.)?program|gpg\\.ssh\\.defaultkeycommand|remote\\..+\\.(uploadpack|receivepack)' +
  '|include\\.path|includeif\\..+\\.path)$';

/**
 * git's own text merge, as a merge driver: a driver emptied would make git run nothing and take our
 * side as merged (silently dropping theirs). This merges as if the driver were not defined.
 */
const TEXT_MERGE_DRIVER = 'git merge-file --marker-size=%L -L ours -L base -L theirs %A %O %B';

/** What a program key the repository sets becomes before the user's own value (if any) is put back. */
function neutralValue(key: string): string {
  if (/^merge\..+\.driver$/.test(key)) return TEXT_MERGE_DRIVER;
  if (key === 'core.sshcommand') return 'ssh';
  if (key === 'gpg.program' || key === 'gpg.openpgp.program') return 'gpg';
  if (key === 'gpg.x509.program') return 'gpgsm';
  if (key === 'gpg.ssh.program') return 'ssh-keygen';
  const remote = /^remote\..+\.(uploadpack|receivepack)$/.exec(key);
  if (remote) return `git-${remote[1] === 'uploadpack' ? 'upload-pack' : 'receive-pack'}`;
  // Empty switches it off: no filter (checked in 2.39: the file passes unchanged), no helper (the
  // list of credential helpers starts over), no askpass; an emptied textconv or diff command fails
  // a diff that would run it, and Taskloom's diffs pass flags that never do.
  return '';
}

export interface ConfigEntry {
  scope: string;
  /** `file:<path>` for a file, as git prints it. */
  origin: string;
  key: string;
  value: string;
}

/** Parses `git config -z --show-scope --show-origin --get-regexp` (each entry `scope\0origin\0key\nvalue\0`). */
export function parseScopedConfig(listing: string): ConfigEntry[] {
  const fields = listing.split('\0');
  const entries: ConfigEntry[] = [];
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const [key = '', ...value] = fields[i + 2]!.split('\n');
    entries.push({ scope: fields[i]!, origin: fields[i + 1]!, key, value: value.join('\n') });
  }
  return entries;
}

/**
 * The `-c` settings that stop every program the repository's config (its `local` and `worktree`
 * scopes, files they include counted in) names: each such key is set to its neutral value, then to
 * each value the user's global or system config gives it, in order (a list such as
 * credential.helper starts over from the empty one; for a single value the last one wins).
 *
 * Credential helpers run with the user's credentials, and a push to a pull request's branch needs
 * them: the helpers kept are those the user (or the machine) configured, never one the repository's
 * config names, since an agent could have written it to read the user's secrets.
 */
export function programOverrides(entries: readonly ConfigEntry[]): string[] {
  const isProgram = (key: string) => !/^include(if\..+)?\.path$/.test(key);
  const fromRepository = new Set(entries.filter((e) => isProgram(e.key) && (e.scope === 'local' || e.scope === 'worktree')).map((e) => e.key));
  const overrides: string[] = [];
  const looseFilters = new Set<string>();
  for (const key of fromRepository) {
    const users = entries.filter((e) => e.key === key && (e.scope === 'global' || e.scope === 'system')).map((e) => e.value);
    overrides.push(`${key}=${neutralValue(key)}`, ...users.map((value) => `${key}=${value}`));
    const filter = /^filter\.(.+)\.(clean|smudge|process)$/.exec(key);
    if (filter && users.length === 0) looseFilters.add(filter[1]!);
  }
  // A required filter whose program is emptied fails the command; the file then passes unchanged.
  for (const name of looseFilters) overrides.push(`filter.${name}.required=false`);
  return overrides;
}

/**
 * The config files whose change can change the overrides: the repository's, the worktree's, the
 * user's, and every file included (as listed by the last read). null when `dir` is not the top of
 * a checkout, whose git directory is then unknown without asking git: its config is read each time.
 */
export function configFilesOf(dir: string, entries: readonly ConfigEntry[]): string[] | null {
  const gitDirs = ownGitDirs(dir);
  if (!gitDirs) return null;
  const home = homedir();
  const xdg = process.env.XDG_CONFIG_HOME || join(home, '.config');
  const included = entries
    .filter((e) => /^include(if\..+)?\.path$/.test(e.key) && e.origin.startsWith('file:'))
    .map((e) => (e.value.startsWith('~/') ? join(home, e.value.slice(2)) : isAbsolute(e.value) ? e.value : resolve(dirname(e.origin.slice(5)), e.value)));
  return [join(gitDirs.commonDir, 'config'), join(gitDirs.gitDir, 'config.worktree'), join(home, '.gitconfig'), join(xdg, 'git', 'config'), ...included];
}

/** What the files are now (inode, size, change time): a file written since stamps differently. */
export function stampOf(files: readonly string[]): string {
  return files
    .map((file) => {
      try {
        const s = statSync(file, { bigint: true });
        return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
      } catch {
        return '-';
      }
    })
    .join('|');
}

let hooksDir: string | undefined;

/**
 * A folder of Taskloom's own, made read-only and empty, for `core.hooksPath`. Made again if anything
 * ever put a file in it. Removed when the process exits.
 */
export function emptyHooksDir(): string {
  if (hooksDir && readdirSync(hooksDir).length === 0) return hooksDir;
  const dir = mkdtempSync(join(tmpdir(), 'taskloom-no-hooks-'));
  chmodSync(dir, 0o555);
  if (!hooksDir) process.once('exit', () => removeQuietly(hooksDir));
  hooksDir = dir;
  return dir;
}

function removeQuietly(dir: string | undefined): void {
  try {
    if (dir) rmdirSync(dir);
  } catch {
    // Not empty (someone wrote in it) or gone: a folder in the temp dir is left behind.
  }
}
