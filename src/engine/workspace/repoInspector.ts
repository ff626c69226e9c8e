import { existsSync, realpathSync, statSync } from 'node:fs';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { WorkspaceError } from './errors';
import { createGit } from './git';
import { resolveCommitIdentity, type CommitIdentity } from './commitIdentity';
import { statusSnapshot } from './gitQueries';

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
}

const TASKLOOM_DIR = '.taskloom/';

/** `git worktree remove` appeared in 2.17; older gits cannot clean up after a run. */
const MIN_WORKTREE_VERSION = [2, 17] as const;

export async function inspectRepo(cwd: string): Promise<RepoInfo> {
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) {
    throw new WorkspaceError(`Folder not found: ${cwd}`, 'Open a folder that exists and is a git repository.');
  }
  let toplevel: string;
  try {
    toplevel = (await createGit(cwd).raw(['rev-parse', '--show-toplevel'])).trim();
  } catch (error) {
    throw explainGitFailure(error, cwd);
  }
  // Inside a .git directory some gits print nothing instead of failing.
  if (!toplevel) throw explainGitFailure(new Error('this operation must be run in a work tree'), cwd);
  const root = realpathSync(toplevel);
  const git = createGit(root);
  const gitCommonDir = await commonDirOf(root);
  const status = await statusSnapshot(git);
  if (/^## (No commits yet|Initial commit) on /.test(status.header)) {
    throw new WorkspaceError(
      `The repository at ${root} has no commits yet`,
      'Make a first commit: Taskloom works from a commit, so each task starts from the same code.',
    );
  }
  const headCommit = (await git.raw(['rev-parse', 'HEAD'])).trim();
  return {
    root,
    gitCommonDir,
    headCommit,
    headRef: branchFromStatusHeader(status.header),
    dirtyPaths: status.paths.filter((p) => !p.startsWith(TASKLOOM_DIR)),
    identity: await resolveCommitIdentity(root),
  };
}

/** `## main...origin/main [ahead 1]` → main; `## HEAD (no branch)` → HEAD. Ref names cannot contain "..". */
function branchFromStatusHeader(header: string): string {
  const rest = header.replace(/^## /, '');
  if (rest.startsWith('HEAD (no branch)')) return 'HEAD';
  return rest.split('...')[0]!.split(' ')[0]!;
}

function explainGitFailure(error: unknown, cwd: string): WorkspaceError {
  const message = error instanceof Error ? error.message : String(error);
  if (/ENOENT/.test(message) && /spawn/.test(message)) {
    return new WorkspaceError(
      'git was not found on PATH',
      'Install git (2.17 or newer) and make sure it is on PATH for VS Code and the terminal.',
      { cause: error },
    );
  }
  if (/not a git repository/i.test(message)) {
    return new WorkspaceError(
      `${cwd} is not inside a git repository`,
      'Taskloom runs tasks on git branches: run `git init` and commit, or open a git repository.',
      { cause: error },
    );
  }
  if (/dubious ownership/i.test(message)) {
    return new WorkspaceError(
      `git refuses the repository at ${cwd}: it is owned by another user`,
      `If you trust it, run \`git config --global --add safe.directory ${cwd}\`.`,
      { cause: error },
    );
  }
  if (/must be run in a work tree/i.test(message)) {
    return new WorkspaceError(
      `${cwd} is a bare repository or a git directory`,
      'Open a folder with a working tree (a normal clone), not the .git folder.',
      { cause: error },
    );
  }
  return new WorkspaceError(`git failed in ${cwd}: ${message.trim()}`, 'Check that the folder is a healthy git repository.', {
    cause: error,
  });
}

/** Asked from the top level because older gits print it relative to the top, not to the cwd. */
async function commonDirOf(root: string): Promise<string> {
  const commonDir = (await createGit(root).raw(['rev-parse', '--git-common-dir'])).trim();
  return realpathSync(resolve(root, commonDir));
}

/**
 * Makes git ignore `pattern` in every worktree of the repository without touching the user's
 * .gitignore: `<gitCommonDir>/info/exclude` is local and shared by worktrees. Returns whether the
 * pattern was added (false when it was already there).
 */
export async function ensureExcluded(root: string, pattern = TASKLOOM_DIR): Promise<boolean> {
  const excludeFile = join(await commonDirOf(root), 'info', 'exclude');
  const current = existsSync(excludeFile) ? await readFile(excludeFile, 'utf8') : '';
  if (current.split(/\r?\n/).some((line) => line.trim() === pattern)) return false;
  await mkdir(dirname(excludeFile), { recursive: true });
  const separator = current === '' || current.endsWith('\n') ? '' : '\n';
  await appendFile(excludeFile, `${separator}# Taskloom run state (added by Taskloom)\n${pattern}\n`);
  return true;
}

export async function gitVersion(): Promise<{ version: string; supportsWorktrees: boolean }> {
  const v = await createGit(process.cwd()).version();
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
