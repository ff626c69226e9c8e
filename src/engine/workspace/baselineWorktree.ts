import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { addWorktree, discardWorktree, exclusive } from './worktreeOps';
import { repoGit, type RepoLocation } from './worktreeManager';
import { runWorktreeDir } from './worktreeRoot';

/**
 * The checkout the baseline gates: the run's base commit, detached, beside the run's task
 * worktrees (`<run dir>/@baseline`), there only while the baseline runs. Made afresh each time:
 * nothing an earlier gate left in it can change what the base is judged on.
 */
export class BaselineWorktree {
  readonly path: string;
  private readonly runDir: string;

  constructor(
    private readonly repo: RepoLocation,
    runId: string,
    /** The run's worktree root (RunConfig.worktree.root); absent: inside the repository. */
    root?: string,
  ) {
    this.runDir = runWorktreeDir(repo.root, runId, root);
    this.path = join(this.runDir, '@baseline');
  }

  async checkout(commit: string): Promise<string> {
    const git = repoGit(this.repo, this.repo.root);
    await exclusive(this.repo.gitCommonDir, async () => {
      await discardWorktree(git, this.path, null, this.runDir);
      await addWorktree(git, ['--detach', this.path, commit]);
    });
    return this.path;
  }

  /** What a drive killed while the baseline ran left behind; nothing when there is no checkout. */
  async removeIfLeft(): Promise<void> {
    if (existsSync(this.path)) await this.remove();
  }

  async remove(): Promise<void> {
    await exclusive(this.repo.gitCommonDir, () => discardWorktree(repoGit(this.repo, this.repo.root), this.path, null, this.runDir));
  }
}
