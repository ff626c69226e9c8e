import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Git } from './git';
import { worktreeGitDir } from './worktreeFiles';

/**
 * Runs `use` with git pointed at a scratch copy of the worktree's index in which every change
 * (staged, unstaged, untracked; ignored files excepted) is staged by `git add -A`. The worktree's
 * own index and files are untouched. `gitWithEnv` makes the git instance for that environment.
 */
export async function withEverythingStaged<T>(
  worktree: string,
  gitWithEnv: (env: Record<string, string>) => Git,
  use: (git: Git) => Promise<T>,
): Promise<T> {
  const scratchDir = await mkdtemp(join(tmpdir(), 'taskloom-index-'));
  const scratchIndex = join(scratchDir, 'index');
  try {
    const indexPath = join(worktreeGitDir(worktree), 'index');
    if (existsSync(indexPath)) {
      // Copying keeps git's stat cache, so unchanged files are not re-read. The copy must keep the
      // index's mtime (Date truncates it slightly downwards, the safe side): git compares it with
      // file mtimes to spot files edited too quickly to show in their stat data ("racy git"), and a
      // fresh mtime would make it trust stale stat data and miss same-size edits.
      const original = await stat(indexPath);
      await copyFile(indexPath, scratchIndex);
      await utimes(scratchIndex, original.atime, original.mtime);
    }
    const git = gitWithEnv({ GIT_INDEX_FILE: scratchIndex });
    await git.run(['add', '-A']);
    return await use(git);
  } finally {
    await rm(scratchDir, { recursive: true, force: true });
  }
}
