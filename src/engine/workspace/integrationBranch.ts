import { rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { GitResponseError, type MergeSummary } from 'simple-git';
import { WorkspaceError } from './errors';
import type { Git } from './git';
import { headCommitOf, isAncestor, resolveCommit, unmergedFiles } from './gitQueries';
import { clearRunWorktreeLocks, clearStaleIndexLock, clearStaleRefLocks, mergeInProgressAt } from './worktreeFiles';
import { INTEGRATION_NAME, repoGit, type RepoLocation } from './worktreeManager';
import { runWorktreeDir } from './worktreeRoot';
import { addWorktree, discardWorktree, exclusive, failureMessage, isDirectory, listWorktrees, mergeNoVerify, resetHard, samePath } from './worktreeOps';

export type CandidateMerge =
  | { status: 'merged'; commit: string }
  /** Already in the candidate: `commit` is the integration commit that brought it in. */
  | { status: 'already'; commit: string }
  | { status: 'conflict'; files: string[] };

/**
 * The merge queue's side of a run: the branch `taskloom/<runId>/integration` and its worktree
 * `<run dir>/@integration` (see runWorktreeDir), checked out detached. The branch only ever
 * points at commits the integration gate passed on (and the run base): batches are merged and
 * gated in the worktree first, then published. Tasks start from the branch, so they never build
 * on a merge that might be taken back. Every method can be repeated after a crash at any point.
 */
export class IntegrationBranch {
  readonly branch: string;
  readonly path: string;
  private readonly worktreeDir: string;
  private readonly git: Git;

  constructor(
    private readonly repo: RepoLocation,
    readonly runId: string,
    /** The run's worktree root (RunConfig.worktree.root); absent: inside the repository. */
    root?: string,
  ) {
    this.worktreeDir = runWorktreeDir(repo.root, runId, root);
    this.branch = `taskloom/${runId}/integration`;
    this.path = join(this.worktreeDir, INTEGRATION_NAME);
    this.git = repoGit(repo, repo.root);
  }

  /**
   * Creates the branch at `runBase` unless it exists (it holds the verified merges: never reset),
   * and the worktree at its head, detached; after a crash, the worktree is reused and brought back
   * to the branch's head (a half-made batch that was never published is dropped), and the run's
   * refs are freed of the locks a killed git left (see clearStaleRefLocks). Called when a drive starts.
   */
  async prepare(runBase: string): Promise<{ path: string; branch: string; head: string }> {
    return this.exclusive(async () => {
      await clearStaleRefLocks(this.repo.gitCommonDir, this.runId);
      await clearRunWorktreeLocks(this.repo.gitCommonDir, this.worktreeDir);
      let head = await resolveCommit(this.git, `refs/heads/${this.branch}`);
      if (!head) {
        await this.git.run(['branch', '-q', this.branch, runBase]);
        head = (await resolveCommit(this.git, `refs/heads/${this.branch}`))!;
      }
      const entry = (await listWorktrees(this.git)).find((e) => samePath(e.path, this.path));
      if (entry && !entry.prunable && isDirectory(this.path)) {
        await clearStaleIndexLock(this.path);
        const wt = repoGit(this.repo, this.path);
        // Release 0.1 checked the branch out here: detach, so the branch moves only when a batch is published.
        if (entry.branch) await wt.run(['checkout', '-q', '--detach']);
        await resetHard(wt, head, mergeInProgressAt(this.path));
      } else {
        await discardWorktree(this.git, this.path, this.branch, this.worktreeDir);
        await addWorktree(this.git, ['--detach', this.path, head]);
      }
      return { path: this.path, branch: this.branch, head };
    });
  }

  /** The commit the branch points to: the last verified merge (or the run base). */
  async verifiedHead(): Promise<string> {
    const head = await resolveCommit(this.git, `refs/heads/${this.branch}`);
    if (!head) throw new WorkspaceError(`${this.branch} does not exist yet`, 'Resume the run: it prepares the integration branch first.');
    return head;
  }

  /** Puts the worktree on `commit` exactly (the start of a batch, or one step of a bisection). */
  async checkout(commit: string): Promise<void> {
    await this.exclusive(async () => {
      await clearStaleIndexLock(this.path);
      await resetHard(this.worktree(), commit, mergeInProgressAt(this.path));
    });
  }

  /**
   * Merges `commit` (a task's approved work) into the worktree's HEAD with --no-ff. Work that HEAD
   * already holds is reported as 'already', so a resumed queue never merges twice. A conflict is
   * aborted, leaving the worktree clean for the next merge of the batch.
   */
  async mergeCandidate(commit: string, message: string): Promise<CandidateMerge> {
    return this.exclusive(async () => {
      const wt = this.worktree();
      const head = await headCommitOf(wt);
      let failure: unknown = null;
      try {
        await (await wt.typed()).merge(['--no-ff', ...(await mergeNoVerify()), '-m', message, commit]);
      } catch (error) {
        failure = error;
      }
      const after = await headCommitOf(wt);
      if (!failure && after !== head) return { status: 'merged', commit: after };
      // Merging first and asking only when nothing moved: the ancestry walk grows with integration's history.
      if (!failure && !mergeInProgressAt(this.path) && (await isAncestor(wt, commit, head))) {
        return { status: 'already', commit: await this.commitThatBroughtIn(wt, commit, head) };
      }
      const files = await unmergedFiles(wt);
      if (mergeInProgressAt(this.path)) await wt.run(['merge', '--abort']);
      if (files.length === 0 && failure instanceof GitResponseError) {
        files.push(...((failure.git as MergeSummary).conflicts ?? []).flatMap((c) => (c.file ? [c.file] : [])));
      }
      if (files.length > 0) return { status: 'conflict', files };
      throw new WorkspaceError(
        `Merging ${commit.slice(0, 10)} into ${this.branch} failed: ${failureMessage(failure) || 'the merge made no commit'}`,
        'Look at the integration worktree; resuming the run retries the merge safely.',
        { cause: failure },
      );
    });
  }

  /**
   * Moves the branch to `commit`, a descendant of `expected` that the integration gate passed on;
   * refuses (git's compare-and-swap) when the branch moved meanwhile.
   */
  async publish(commit: string, expected: string): Promise<void> {
    await this.exclusive(async () => {
      await this.git.run(['update-ref', '-m', 'taskloom: integration gate passed', `refs/heads/${this.branch}`, commit, expected]);
    });
  }

  /** Removes the worktree once the run is done, so no checkout of the run is left for the user's tools to find; the branch stays. */
  async remove(): Promise<void> {
    await this.exclusive(async () => {
      await discardWorktree(this.git, this.path, null, this.worktreeDir);
      // Only when empty: worktrees kept for a human stay where they are.
      await rmdir(this.worktreeDir).catch(() => undefined);
    });
  }

  private worktree(): Git {
    if (!isDirectory(this.path)) {
      throw new WorkspaceError(`The integration worktree of run ${this.runId} is missing`, 'Resume the run: it prepares the integration worktree again.');
    }
    return repoGit(this.repo, this.path);
  }

  /** The first integration commit (following first parents) that contains `tip`. */
  private async commitThatBroughtIn(wt: Git, tip: string, head: string): Promise<string> {
    const { stdout } = await wt.run(['rev-list', '--first-parent', '--ancestry-path', '--reverse', `${tip}..${head}`]);
    return stdout.split('\n')[0]?.trim() || head;
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    return exclusive(this.repo.gitCommonDir, work);
  }
}
