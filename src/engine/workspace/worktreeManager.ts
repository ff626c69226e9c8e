import { changedFilesBetween } from './changedFiles';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { ID_MAX_LENGTH, isSafeId, type IdKind } from '../domain/ids';
import { deleteActorSnapshotRefs } from './actorSnapshot';
import { WorkspaceError } from './errors';
import type { CommitIdentity } from './commitIdentity';
import { commitEverything, type CommitMade } from './commitEverything';
import { Git, type GitObserver, type GitOptions } from './git';
import { headCommitOf, isAncestor, refsUnder, resolveCommit, uncommittedPaths, unmergedFiles } from './gitQueries';
import { clearStaleIndexLock, FULL_HASH, mergeInProgressAt, readTaskBase, recordTaskBase, worktreeGitDir } from './worktreeFiles';
import type { WorktreeEntry } from './worktreeList';
import { runWorktreeDir } from './worktreeRoot';
import { withEverythingStaged } from './scratchIndex';
import { sensitiveChangesBetween } from './sensitiveChanges';
import type { SensitiveChange } from '../domain/sensitivePaths';
import { cleanRecycled, drainParkedWorktrees, parkedWorktrees, parkWorktree, POOL_NAME, readSetupBase, recordSetupBase, setupInputsChanged, takeParkedWorktree } from './worktreePool';
import { addWorktree, discardWorktree, exclusive, isDirectory, isInside, listWorktrees, mergeNoVerify, resetHard, samePath } from './worktreeOps';

export interface RepoLocation {
  root: string;
  gitCommonDir: string;
  /** Whose identity Taskloom's commits carry (see resolveCommitIdentity); absent: Taskloom's own, unsigned. */
  identity?: CommitIdentity;
  /** Told about every git process run in the repository (set by a benchmark or a test, see EngineOptions.gitObserver). */
  gitObserver?: GitObserver;
}

/**
 * Git for a checkout of this repository, committing as the repository's own identity (and signing)
 * when it has one, running none of the programs the repository names (see repositoryPrograms.ts);
 * in a linked worktree, checking before each command that its `.git` still points to this repository.
 */
export function repoGit(repo: RepoLocation, dir: string, env?: Record<string, string>): Git {
  return new Git(dir, { ...repoGitOptions(repo, dir), ...(env ? { env } : {}) });
}

/** The same for what the user does to their own branch (`apply`): their hooks and configured programs run, as under their own git. */
export function usersOwnGit(repo: RepoLocation, dir: string): Git {
  return new Git(dir, { ...repoGitOptions(repo, dir), userPrograms: true });
}

function repoGitOptions(repo: RepoLocation, dir: string): GitOptions {
  const linked = resolve(dir) !== resolve(repo.root);
  return { taskloomIdentity: repo.identity?.source !== 'user', observer: repo.gitObserver, ...(linked ? { worktreeOf: repo.gitCommonDir } : {}) };
}

export interface PrepareTaskOptions {
  taskId: string;
  /** The verified integration head: it holds the run base and every merged dependency. */
  startCommit: string;
  /** true starts over from `startCommit`; false reuses a complete worktree left by an earlier attempt. */
  fresh: boolean;
}

export interface PreparedTaskWorktree {
  path: string;
  branch: string;
  /** What the task's diff is measured against. */
  baseCommit: string;
  reused: boolean;
  /** A merged task's worktree was checked out for this one instead of a new checkout. */
  recycled?: { fromTaskId: string | null; setupInputsChanged: boolean };
}

/** The task's branch after taking in integration: `conflicts` lists files left with markers (the merge is then still in progress). */
export interface SyncOutcome {
  path: string;
  /** The task's commit before the merge. */
  from: string;
  conflicts: string[];
  /** The worktree was gone and was added again at the branch (so it lacks what its setup made). */
  added: boolean;
}

export interface CleanupResult {
  removed: string[];
  kept: Array<{ taskId: string; reason: string }>;
}

export const INTEGRATION_NAME = '@integration';
/** `<run dir>/@candidates/<task>-<n>`: the worktrees of tasks' candidates, beside the tasks' own. */
export const CANDIDATES_NAME = '@candidates';

/** In a parked worktree's git directory: which task it last served (recorded as recycledFrom). */
const PARKED_FROM_FILE = 'taskloom-parked-from';

/**
 * Owns the task branches and worktrees of one run (IntegrationBranch owns the integration side):
 *   task branch      taskloom/<runId>/<taskId>     worktree <run dir>/<taskId>
 *   task base        recorded in the task worktree's git directory once preparation finished
 * The run dir (runWorktreeDir) is `<repo>/.taskloom/worktrees/<runId>` unless the run was made with
 * a worktree root of the user's. `.taskloom/` is ignored by git (info/exclude), so worktrees never
 * show as the user's work. Not under `.git/`: Claude Code refuses to write any path inside a `.git`
 * folder. Every method can be repeated after a crash at any point.
 */
export class WorktreeManager {
  readonly worktreeDir: string;
  readonly integrationBranch: string;
  readonly repoRoot: string;
  /** Runs in the user's main worktree: only for commands that do not touch its files. */
  private readonly git: Git;

  constructor(
    readonly repo: RepoLocation,
    readonly runId: string,
    /** The run's worktree root (RunConfig.worktree.root); absent: inside the repository. */
    root?: string,
  ) {
    assertSafeId(runId, 'run');
    this.worktreeDir = runWorktreeDir(repo.root, runId, root);
    this.integrationBranch = `taskloom/${runId}/integration`;
    this.repoRoot = repo.root;
    this.git = repoGit(repo, repo.root);
  }

  taskBranch(taskId: string): string {
    assertSafeId(taskId, 'task');
    return `taskloom/${this.runId}/${taskId}`;
  }

  taskPath(taskId: string): string {
    assertSafeId(taskId, 'task');
    return join(this.worktreeDir, taskId);
  }

  async prepareTaskWorktree(options: PrepareTaskOptions): Promise<PreparedTaskWorktree> {
    const { taskId, startCommit, fresh } = options;
    const path = this.taskPath(taskId);
    const branch = this.taskBranch(taskId);
    return this.exclusive(async () => {
      if (!fresh) {
        const reusable = await this.reusableTaskWorktree(taskId);
        if (reusable) return reusable;
      }
      return this.addAt(path, branch, startCommit);
    });
  }

  /**
   * A worktree of its own for one candidate of a task (see run/candidates.ts), from the pool when it
   * has one, on the branch `taskloom/<run>/@candidates/<task>/<n>`: no task id starts with "@", so
   * none can clash with it. Always fresh: a candidate starts from the task's start commit.
   */
  async prepareCandidateWorktree(taskId: string, candidate: number, startCommit: string): Promise<PreparedTaskWorktree> {
    const path = this.candidatePath(taskId, candidate);
    await mkdir(dirname(path), { recursive: true });
    return this.exclusive(() => this.addAt(path, this.candidateBranch(taskId, candidate), startCommit));
  }

  candidateBranch(taskId: string, candidate: number): string {
    assertSafeId(taskId, 'task');
    return `taskloom/${this.runId}/${CANDIDATES_NAME}/${taskId}/${candidate}`;
  }

  candidatePath(taskId: string, candidate: number): string {
    assertSafeId(taskId, 'task');
    return join(this.worktreeDir, CANDIDATES_NAME, `${taskId}-${candidate}`);
  }

  /** Removes a candidate's worktree; its branch (and so its work) stays until the run is discarded. */
  async removeCandidateWorktree(taskId: string, candidate: number): Promise<void> {
    const path = this.candidatePath(taskId, candidate);
    await this.exclusive(() => discardWorktree(this.git, path, null, this.worktreeDir));
  }

  /** A new checkout of `branch` at `startCommit` at `path`: a parked one when the pool has one. */
  private async addAt(path: string, branch: string, startCommit: string): Promise<PreparedTaskWorktree> {
    const recycled = existsSync(path) ? null : await this.recycleParked(path, branch, startCommit);
    if (recycled) return recycled;
    // Nothing in the way (the usual case): add at once. Listing every worktree costs more the more
    // there are; only when git refuses (a crash left something at the path) is all of it cleared.
    const added = !existsSync(path) && (await this.git.run(['worktree', 'add', '-q', '-B', branch, path, startCommit]).then(() => true, () => false));
    if (!added) {
      await discardWorktree(this.git, path, branch, this.worktreeDir);
      await addWorktree(this.git, ['-B', branch, path, startCommit], branch);
    }
    const baseCommit = FULL_HASH.test(startCommit) ? startCommit : await headCommitOf(repoGit(this.repo, path));
    await recordSetupBase(path, baseCommit);
    await recordTaskBase(path, baseCommit);
    return { path, branch, baseCommit, reused: false };
  }

  /**
   * Merges the verified integration head into the task's branch, in its worktree (added again at
   * the branch when it is gone), so the task's agent can resolve a conflict with what is merged, or
   * fix what the integration gate found, where the task's own gate and critic then check it. A
   * merge of the same commit already in progress is kept as it is (a resolution goes on); other
   * uncommitted work is committed first, so nothing is lost. A clean merge is committed; a
   * conflicted one is left in progress, with the markers in the files.
   */
  async syncWithIntegration(taskId: string, integrationCommit: string, messages: { workInProgress: string; merge: string }): Promise<SyncOutcome> {
    const path = this.taskPath(taskId);
    const branch = this.taskBranch(taskId);
    return this.exclusive(async () => {
      const entry = (await listWorktrees(this.git)).find((e) => samePath(e.path, path));
      const added = !entry || entry.branch !== branch || entry.prunable || !isDirectory(path);
      if (added) {
        await discardWorktree(this.git, path, branch, this.worktreeDir);
        await addWorktree(this.git, [path, branch], branch);
      }
      await clearStaleIndexLock(path);
      const wt = repoGit(this.repo, path);
      if (mergeInProgressAt(path)) {
        const mergeHead = (await readFile(join(worktreeGitDir(path), 'MERGE_HEAD'), 'utf8')).trim();
        if (mergeHead === integrationCommit) {
          return { path, from: await headCommitOf(wt), conflicts: await unmergedFiles(wt), added };
        }
        await wt.run(['merge', '--abort']);
      }
      await commitEverything(wt, messages.workInProgress);
      const from = await headCommitOf(wt);
      if (await isAncestor(wt, integrationCommit, from)) return { path, from, conflicts: [], added };
      try {
        await (await wt.typed()).merge(['--no-ff', '--no-commit', ...(await mergeNoVerify()), integrationCommit]);
      } catch {
        // A conflicted merge exits non-zero; what is left unmerged is read from the index below.
      }
      const conflicts = await unmergedFiles(wt);
      if (conflicts.length === 0) {
        if (!mergeInProgressAt(path)) {
          throw new WorkspaceError(`Merging integration into ${branch} failed`, 'Look at the task worktree; retrying the task is safe.');
        }
        await wt.run(['commit', '--no-verify', '-q', '-m', messages.merge]);
        await recordTaskBase(path, integrationCommit);
      }
      return { path, from, conflicts, added };
    });
  }

  /**
   * Puts the task's branch back on `commit` (the work that passed its gate and critic), dropping
   * anything made after it that was never approved: a resolution or a fix a crash interrupted.
   */
  async restoreTaskBranch(taskId: string, commit: string): Promise<void> {
    const path = this.taskPath(taskId);
    const branch = this.taskBranch(taskId);
    await this.exclusive(async () => {
      const entry = (await listWorktrees(this.git)).find((e) => samePath(e.path, path) && e.branch === branch);
      if (entry && isDirectory(path)) {
        await clearStaleIndexLock(path);
        await resetHard(repoGit(this.repo, path), commit, mergeInProgressAt(path));
      } else {
        await this.git.run(['update-ref', `refs/heads/${branch}`, commit]);
      }
    });
  }

  async hasCommit(sha: string): Promise<boolean> {
    return (await resolveCommit(this.git, sha)) !== null;
  }

  async mergeBase(a: string, b: string): Promise<string> {
    return (await this.git.run(['merge-base', a, b])).stdout.trim();
  }

  /** Each side's change to `files` since the two sides parted: what a conflict's resolver must reconcile. */
  async conflictSides(path: string, ours: string, theirs: string, files: string[]): Promise<{ ours: string; theirs: string }> {
    const wt = repoGit(this.repo, path);
    const base = (await wt.run(['merge-base', ours, theirs])).stdout.trim();
    const diff = async (to: string) => (await wt.run(['diff', '--no-color', '--no-ext-diff', '--no-textconv', base, to, '--', ...files])).stdout;
    return { ours: await diff(ours), theirs: await diff(theirs) };
  }

  /** The tree a worktree's HEAD holds (after commitAll: everything in it but ignored files). */
  async headTree(path: string): Promise<string> {
    return (await repoGit(this.repo, path).run(['rev-parse', 'HEAD^{tree}'])).stdout.trim();
  }

  /** Every path a worktree's HEAD changed since `base`: added, modified, deleted, and both names of a rename. */
  async changedPaths(path: string, base: string): Promise<string[]> {
    const files = await changedFilesBetween(repoGit(this.repo, path), base, 'HEAD');
    return [...new Set(files.flatMap((f) => (f.oldPath ? [f.oldPath, f.path] : [f.path])))];
  }

  /** The tree of a commit of the repository. */
  async treeOf(commit: string): Promise<string> {
    return (await this.git.run(['rev-parse', `${commit}^{tree}`])).stdout.trim();
  }

  /** The commit a worktree's HEAD is at. */
  async headCommit(path: string): Promise<string> {
    return headCommitOf(repoGit(this.repo, path));
  }

  /** The commit a task branch points to, or null when it has none. */
  async taskTip(taskId: string): Promise<string | null> {
    return resolveCommit(this.git, `refs/heads/${this.taskBranch(taskId)}`);
  }

  /** Snapshots everything in the worktree (new, changed, deleted files) as one commit, if anything changed. */
  async commitAll(path: string, message: string): Promise<CommitMade | null> {
    return commitEverything(repoGit(this.repo, path), message);
  }

  /** The committed files between `baseCommit` and the worktree's HEAD that need a human (see sensitiveChangesBetween). */
  async sensitiveChanges(path: string, baseCommit: string, patterns: readonly string[]): Promise<SensitiveChange[]> {
    const git = repoGit(this.repo, path);
    return sensitiveChangesBetween(git, baseCommit, await headCommitOf(git), patterns);
  }

  /**
   * The worktree's whole change against `baseCommit`: commits, staged, unstaged and untracked files.
   * Untracked files are staged in a scratch copy of the index, so the worktree's own index is untouched.
   */
  async diffFromBase(path: string, baseCommit: string): Promise<string> {
    return withEverythingStaged(
      path,
      (env) => repoGit(this.repo, path, env),
      async (scratch) => (await scratch.run(['diff', '--cached', '--no-color', '--no-ext-diff', '--no-textconv', '--src-prefix=a/', '--dst-prefix=b/', baseCommit, '--'])).stdout,
    );
  }

  /** The diff between two commits, read from the repository (no checkout needed: a candidate's worktree may be gone). */
  async diffBetween(base: string, head: string): Promise<string> {
    return (await this.git.run(['diff', '--no-color', '--no-ext-diff', '--no-textconv', '--src-prefix=a/', '--dst-prefix=b/', base, head, '--'])).stdout;
  }

  /** Removes the task's worktree; its branch (and so its commits) stays. */
  async removeTaskWorktree(taskId: string): Promise<void> {
    const path = this.taskPath(taskId);
    await this.exclusive(() => discardWorktree(this.git, path, null, this.worktreeDir));
  }

  /**
   * Removes a merged task's worktree once git confirms its work is in `integrationHead` and
   * nothing in it is uncommitted; otherwise keeps it and says why. The branch stays. With
   * `poolSize`, the worktree is parked for the next task to recycle instead, while the run's task
   * checkouts (parked ones included) stay within that many.
   */
  async removeMergedTaskWorktree(taskId: string, integrationHead: string, options: { poolSize?: number } = {}): Promise<string | null> {
    const path = this.taskPath(taskId);
    return this.exclusive(async () => {
      // Asked of the worktree itself, not of a listing of all of them: the cost stays the same however many there are.
      if (!isDirectory(path)) return null;
      const wt = repoGit(this.repo, path);
      const head = await resolveCommit(wt, 'HEAD');
      if (!head || !(await isAncestor(wt, head, integrationHead))) return 'work not merged into integration';
      if ((await uncommittedPaths(wt)).length > 0) return 'uncommitted changes in the worktree';
      if (options.poolSize && this.taskCheckouts() <= options.poolSize) {
        const parked = await parkWorktree(this.git, wt, path, this.worktreeDir).catch(() => null);
        if (parked) {
          await writeFile(join(worktreeGitDir(parked), PARKED_FROM_FILE), `${taskId}\n`).catch(() => undefined);
          return null;
        }
        if (!isDirectory(path)) return null;
      }
      await this.git.run(['worktree', 'remove', '--force', path]);
      return null;
    });
  }

  /**
   * Removes every worktree and every branch of the run (`taskloom/<runId>/*`), work included:
   * only for a run the user chose to discard. Refuses, before touching anything, when one of
   * those branches is checked out outside the run's worktrees (the user's own checkout).
   */
  async discardRun(): Promise<{ worktrees: string[]; branches: string[] }> {
    return this.exclusive(async () => {
      const prefix = `taskloom/${this.runId}/`;
      const worktrees = await this.listWorktrees();
      const foreign = worktrees.find((e) => e.branch?.startsWith(prefix) && !isInside(e.path, this.worktreeDir));
      if (foreign) {
        throw new WorkspaceError(
          `Branch ${foreign.branch} is checked out in ${foreign.path}`,
          'Switch that checkout to another branch, then discard the run again.',
        );
      }
      const ours = worktrees.filter((e) => isInside(e.path, this.worktreeDir));
      for (const entry of ours) await discardWorktree(this.git, entry.path, null, this.worktreeDir);
      await rm(this.worktreeDir, { recursive: true, force: true });
      await this.git.run(['worktree', 'prune']);
      const branches = (await refsUnder(this.git, `refs/heads/taskloom/${this.runId}`)).map((ref) => ref.slice('refs/heads/'.length));
      if (branches.length) await this.git.run(['branch', '-D', '-q', ...branches]);
      await deleteActorSnapshotRefs(this.git, this.runId);
      return { worktrees: ours.map((e) => e.path), branches };
    });
  }

  /**
   * Removes the worktrees of tasks whose branch is merged into integration, checked with git rather
   * than trusted from the caller. Branches are never deleted; a worktree is kept when its work is not
   * merged (GREEN or not) or it has uncommitted changes. `greenTaskIds` lets unmerged GREEN work be
   * reported even when its worktree is gone.
   */
  async cleanup({ greenTaskIds }: { greenTaskIds: string[] }): Promise<CleanupResult> {
    return this.exclusive(async () => {
      const result: CleanupResult = { removed: [], kept: [] };
      // Parked worktrees hold merged work only: nothing in them needs keeping.
      await drainParkedWorktrees(this.git, this.worktreeDir);
      const integration = await resolveCommit(this.git, `refs/heads/${this.integrationBranch}`);
      const green = new Set(greenTaskIds);
      const seen = new Set<string>();

      const ours = (await this.listWorktrees()).filter(
        (e) => samePath(dirname(e.path), this.worktreeDir) && basename(e.path) !== INTEGRATION_NAME,
      );
      for (const entry of ours) {
        const taskId = basename(entry.path);
        seen.add(taskId);
        const reason = await this.reasonToKeep(taskId, entry, integration, green.has(taskId));
        if (reason) {
          result.kept.push({ taskId, reason });
          continue;
        }
        await discardWorktree(this.git, entry.path, null, this.worktreeDir);
        result.removed.push(taskId);
      }
      for (const taskId of greenTaskIds.filter((id) => !seen.has(id))) {
        const tip = await resolveCommit(this.git, `refs/heads/${this.taskBranch(taskId)}`);
        if (tip && !(integration && (await isAncestor(this.git, tip, integration)))) {
          result.kept.push({ taskId, reason: 'GREEN work not merged into integration (branch kept)' });
        }
      }
      await this.git.run(['worktree', 'prune']);
      return result;
    });
  }

  /** Every worktree registered in the repository (the user's too), from `git worktree list --porcelain`. */
  async listWorktrees(): Promise<WorktreeEntry[]> {
    return listWorktrees(this.git);
  }

  /** Task checkouts in the run's folder: the tasks' own and the parked ones (not the integration's). */
  private taskCheckouts(): number {
    if (!existsSync(this.worktreeDir)) return 0;
    const own = readdirSync(this.worktreeDir).filter((n) => n !== INTEGRATION_NAME && n !== POOL_NAME && n !== CANDIDATES_NAME).length;
    return own + parkedWorktrees(this.worktreeDir).length;
  }

  /**
   * Gives the task a parked worktree, checked out at `startCommit`, when the pool has one. A parked
   * worktree that cannot be taken (a crash left it half moved) is removed and the next one tried;
   * null when none is left, and the caller adds a new worktree.
   */
  private async recycleParked(path: string, branch: string, startCommit: string): Promise<PreparedTaskWorktree | null> {
    for (const parked of parkedWorktrees(this.worktreeDir)) {
      try {
        const fromTaskId = (await readFile(join(worktreeGitDir(parked), PARKED_FROM_FILE), 'utf8').catch(() => '')).trim() || null;
        const wt = repoGit(this.repo, path);
        await takeParkedWorktree(this.git, wt, parked, branch, startCommit);
        await rm(join(worktreeGitDir(path), PARKED_FROM_FILE), { force: true });
        const baseCommit = FULL_HASH.test(startCommit) ? startCommit : await headCommitOf(wt);
        // Compared with the commit its setup last ran on, not the previous task's tip: that task may have changed a lockfile.
        const setupBase = await readSetupBase(path);
        const setupInputs = !setupBase || (await setupInputsChanged(this.git, setupBase, baseCommit));
        await cleanRecycled(wt, !setupInputs);
        if (setupInputs) await recordSetupBase(path, baseCommit);
        await recordTaskBase(path, baseCommit);
        return { path, branch, baseCommit, reused: false, recycled: { fromTaskId, setupInputsChanged: setupInputs } };
      } catch {
        await discardWorktree(this.git, parked, null, this.worktreeDir);
        if (existsSync(path)) await discardWorktree(this.git, path, branch, this.worktreeDir);
      }
    }
    return null;
  }

  private async reusableTaskWorktree(taskId: string): Promise<PreparedTaskWorktree | null> {
    const path = this.taskPath(taskId);
    const branch = this.taskBranch(taskId);
    const entry = await this.registeredAt(path);
    if (!entry || entry.branch !== branch || entry.prunable || !isDirectory(path)) return null;
    const baseCommit = await readTaskBase(path);
    // The branch must still grow from its recorded base; anything else was rewritten and is not trusted.
    if (!baseCommit || !(await isAncestor(this.git, baseCommit, entry.head))) return null;
    await clearStaleIndexLock(path);
    return { path, branch, baseCommit, reused: true };
  }

  private async reasonToKeep(
    taskId: string,
    entry: WorktreeEntry,
    integration: string | null,
    isGreen: boolean,
  ): Promise<string | null> {
    if (!isSafeId(taskId, 'task')) return 'not a Taskloom task worktree';
    // The worktree's HEAD is its branch tip (or the commit checked out when detached).
    const tip = entry.head;
    if (!tip) return 'no commit checked out';
    if (!integration || !(await isAncestor(this.git, tip, integration))) {
      return isGreen ? 'GREEN work not merged into integration' : 'work not merged into integration';
    }
    if (isDirectory(entry.path) && (await uncommittedPaths(repoGit(this.repo, entry.path))).length > 0) {
      return 'uncommitted changes in the worktree';
    }
    return null;
  }

  private async registeredAt(path: string): Promise<WorktreeEntry | undefined> {
    return (await this.listWorktrees()).find((e) => samePath(e.path, path));
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    return exclusive(this.repo.gitCommonDir, work);
  }
}

function assertSafeId(id: string, kind: IdKind): void {
  if (!isSafeId(id, kind)) {
    throw new WorkspaceError(
      `Invalid ${kind} id "${id}"`,
      `Ids may use letters, digits, ".", "_" and "-" (starting with a letter or digit, at most ${ID_MAX_LENGTH[kind]}), as they become branch names.`,
    );
  }
}

