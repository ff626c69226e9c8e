import { existsSync, realpathSync, statSync } from 'node:fs';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { WorkspaceError } from './errors';
import { Git, GitCommandError, type GitObserver } from './git';
import { resolveCommitIdentity, type CommitIdentity } from './commitIdentity';
import { resolveCommit, statusOf } from './gitQueries';

export interface RepoInfo {
  /** Top of the working tree `cwd` is in, with symlinks resolved. */
  root: string;
  /** Absolute git directory shared by all worktrees (`.git` of the main worktree). */
  gitCommonDir: string;
  headCommit: string;
  /** Current branch name, or 'HEAD' when detached. */
  headRef: string;
  /** Uncommitted paths (modified, staged, untracked), without Taskloom's own `.taskloom/`. */
  dirtyPaths: string[];
  /** Whose identity Taskloom's commits carry, and whether they are signed. */
  identity: CommitIdentity;
  /** Told about every git process run in the repository (see RepoLocation.gitObserver). */
  gitObserver?: GitObserver;
}

const TASKLOOM_DIR = '.taskloom/';

/** `git worktree remove` appeared in 2.17; older gits cannot clean up after a run. */
const MIN_WORKTREE_VERSION = [2, 17] as const;

/** The repository `cwd` is in; `gitObserver` hears about its git processes from here on (see RepoLocation). */
export async function inspectRepo(cwd: string, gitObserver?: GitObserver): Promise<RepoInfo> {
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) {
    throw new WorkspaceError(`Folder not found: ${cwd}`, 'Open a folder that exists and is a git repository.');
  }
  const observed = gitObserver ? { gitObserver } : {};
  let toplevel: string;
  try {
    toplevel = (await new Git(cwd, { observer: gitObserver }).run(['rev-parse', '--show-toplevel'])).stdout.trim();
  } catch (error) {
    throw explainGitFailure(error, cwd);
  }
  // Inside a .git directory some gits print nothing instead of failing.
  if (!toplevel) throw noWorkTree(cwd);
  const root = realpathSync(toplevel);
  const git = new Git(root, { observer: gitObserver });
  const gitCommonDir = await commonDirOf(git);
  const headCommit = await resolveCommit(git, 'HEAD');
  if (!headCommit) {
    throw new WorkspaceError(
      `The repository at ${root} has no commits yet`,
      'Make a first commit: Taskloom works from a commit, so each task starts from the same code.',
    );
  }
  const status = await statusOf(git);
  return {
    root,
    gitCommonDir,
    headCommit,
    headRef: status.detached ? 'HEAD' : (status.current ?? 'HEAD'),
    dirtyPaths: status.files.map((f) => f.path).filter((p) => !p.startsWith(TASKLOOM_DIR)),
    identity: await resolveCommitIdentity(root, gitObserver),
    ...observed,
  };
}

/** The top folder of the repository `folder` is in (symlinks resolved), or null when it is in none. */
export async function repositoryTop(folder: string): Promise<string | null> {
  const top = await new Git(folder).run(['rev-parse', '--show-toplevel']).then(
    ({ stdout }) => stdout.trim(),
    () => '',
  );
  return top ? realpathSync(top) : null;
}

/**
 * Why `git rev-parse --show-toplevel` failed in `cwd`, for the user. git says it only in words
 * (every refusal exits 128), so its stderr (LC_ALL=C) picks the hint; the message always keeps it.
 */
function explainGitFailure(error: unknown, cwd: string): WorkspaceError {
  const said = error instanceof GitCommandError ? error.stderr : String(error);
  if (error instanceof GitCommandError && error.systemCode === 'ENOENT') {
    return new WorkspaceError(
      'git was not found on PATH',
      'Install git (2.17 or newer) and make sure it is on PATH for VS Code and the terminal.',
      { cause: error },
    );
  }
  if (/not a git repository/i.test(said)) {
    return new WorkspaceError(
      `${cwd} is not inside a git repository`,
      'Taskloom runs tasks on git branches: make it a git repository with a first commit, or open one.',
      { cause: error, next: [{ kind: 'initRepository' }] },
    );
  }
  if (/dubious ownership/i.test(said)) {
    return new WorkspaceError(
      `git refuses the repository at ${cwd}: it is owned by another user`,
      'If you trust it, tell git to trust it too.',
      { cause: error, next: [{ kind: 'trustRepository', path: cwd }] },
    );
  }
  if (/must be run in a work tree/i.test(said)) return noWorkTree(cwd, error);
  return new WorkspaceError(`git failed in ${cwd}: ${error instanceof Error ? error.message : said}`, 'Check that the folder is a healthy git repository.', {
    cause: error,
  });
}

function noWorkTree(cwd: string, cause?: unknown): WorkspaceError {
  return new WorkspaceError(
    `${cwd} is a bare repository or a git directory`,
    'Open a folder with a working tree (a normal clone), not the .git folder.',
    cause === undefined ? undefined : { cause },
  );
}

/** Asked from the top level (`git` runs there) because older gits print it relative to the top, not to the cwd. */
async function commonDirOf(git: Git): Promise<string> {
  const commonDir = (await git.run(['rev-parse', '--git-common-dir'])).stdout.trim();
  return realpathSync(resolve(git.dir, commonDir));
}

/**
 * Makes git ignore `pattern` in every worktree of the repository without touching the user's
 * .gitignore: `<gitCommonDir>/info/exclude` is local and shared by worktrees. Returns whether the
 * pattern was added (false when it was already there).
 */
export async function ensureExcluded(gitCommonDir: string, pattern = TASKLOOM_DIR): Promise<boolean> {
  const excludeFile = join(gitCommonDir, 'info', 'exclude');
  const current = existsSync(excludeFile) ? await readFile(excludeFile, 'utf8') : '';
  if (current.split(/\r?\n/).some((line) => line.trim() === pattern)) return false;
  await mkdir(dirname(excludeFile), { recursive: true });
  const separator = current === '' || current.endsWith('\n') ? '' : '\n';
  await appendFile(excludeFile, `${separator}# Taskloom run state (added by Taskloom)\n${pattern}\n`);
  return true;
}

export async function gitVersion(): Promise<{ version: string; supportsWorktrees: boolean }> {
  const v = await (await new Git(process.cwd()).typed()).version();
  if (!v.installed) {
    throw new WorkspaceError(
      'git was not found on PATH',
      'Install git (2.17 or newer) and make sure it is on PATH for VS Code and the terminal.',
    );
  }
  const [needMajor, needMinor] = MIN_WORKTREE_VERSION;
  return {
    version: `${v.major}.${v.minor}.${v.patch}`,
    supportsWorktrees: v.major > needMajor || (v.major === needMajor && v.minor >= needMinor),
  };
}
