import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { WorkspaceError } from './errors';
import { headCommitOf, resolveCommit, unmergedFiles } from './gitQueries';
import { addWorktree, discardWorktree, exclusive, failureMessage, resetHard } from './worktreeOps';
import { repoGit, type RepoLocation } from './worktreeManager';
import { runWorktreeDir } from './worktreeRoot';

/**
 * The worktree where `watch` fixes a pull request: `<run dir>/@pull-<n>` (see runWorktreeDir)
 * (the `@` keeps it apart from task ids), detached at the commit the pull request's head had
 * when the reaction started, fetched from the remote into `refs/taskloom/<run>/@pull-<n>/head`.
 * Fetched refs live under the run's own ref prefix, so discarding the run removes them too.
 */
export class PullRequestWorktree {
  readonly path: string;
  private readonly refPrefix: string;
  private readonly runDir: string;

  constructor(
    private readonly repo: RepoLocation,
    private readonly runId: string,
    number: number,
    private readonly remote: string,
    /** The run's worktree root (RunConfig.worktree.root); absent: inside the repository. */
    root?: string,
  ) {
    this.runDir = runWorktreeDir(repo.root, runId, root);
    this.path = join(this.runDir, `@pull-${number}`);
    this.refPrefix = `refs/taskloom/${runId}/@pull-${number}`;
  }

  /** The worktree at exactly `headSha` of `branch` on the remote, with nothing else in it. */
  async checkout(branch: string, headSha: string): Promise<string> {
    const git = repoGit(this.repo, this.repo.root);
    await this.fetch(branch, 'head');
    if (!(await resolveCommit(git, headSha))) {
      throw new WorkspaceError(
        `${this.remote}/${branch} no longer has ${headSha.slice(0, 10)}, the commit the pull request was at`,
        'Someone pushed to the branch meanwhile; watch the pull request again to look at the new head.',
        { next: [{ kind: 'keepPullRequestGreen', runId: this.runId }] },
      );
    }
    await exclusive(this.repo.gitCommonDir, async () => {
      if (existsSync(join(this.path, '.git'))) {
        await resetHard(repoGit(this.repo, this.path), headSha, true);
        await repoGit(this.repo, this.path).run(['checkout', '-q', '--detach', headSha]);
        return;
      }
      await discardWorktree(git, this.path, null, this.runDir);
      await addWorktree(git, ['--detach', this.path, headSha]);
    });
    return this.path;
  }

  /**
   * Merges the remote's `base` into the worktree without committing: the files conflicted (left
   * with markers), or none when git merged it cleanly. Either way the merge stays in progress for
   * the commit that completes it.
   */
  async mergeBase(base: string): Promise<string[]> {
    const ref = await this.fetch(base, 'base');
    const wt = repoGit(this.repo, this.path);
    try {
      await (await wt.typed()).merge(['--no-ff', '--no-commit', '--no-edit', ref]);
      return [];
    } catch (error) {
      // A conflicted merge fails too; the index tells it from a merge that could not start.
      const conflicts = await unmergedFiles(wt);
      if (conflicts.length === 0) throw error;
      return conflicts;
    }
  }

  /** The base branch's commit that mergeBase merged. */
  async baseCommit(): Promise<string> {
    return (await repoGit(this.repo, this.repo.root).run(['rev-parse', `${this.refPrefix}/base`])).stdout.trim();
  }

  async head(): Promise<string | undefined> {
    if (!existsSync(join(this.path, '.git'))) return undefined;
    return headCommitOf(repoGit(this.repo, this.path));
  }

  /** Commits in the worktree on top of `headSha`. */
  async commitsSince(headSha: string): Promise<number> {
    return Number((await repoGit(this.repo, this.path).run(['rev-list', '--count', `${headSha}..HEAD`])).stdout.trim());
  }

  private async fetch(branch: string, name: 'head' | 'base'): Promise<string> {
    const ref = `${this.refPrefix}/${name}`;
    try {
      await repoGit(this.repo, this.repo.root).run(['fetch', '-q', '--no-tags', this.remote, `+refs/heads/${branch}:${ref}`]);
    } catch (error) {
      throw new WorkspaceError(
        `Cannot fetch ${branch} from ${this.remote}: ${failureMessage(error).trim()}`,
        'Check the network and that you can fetch from the remote, then watch the pull request again.',
        { cause: error, next: [{ kind: 'keepPullRequestGreen', runId: this.runId }] },
      );
    }
    return ref;
  }
}
