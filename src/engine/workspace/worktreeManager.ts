import { existsSync, realpathSync, statSync } from 'node:fs';
import { copyFile, mkdtemp, rm, rmdir, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { GitResponseError, type MergeSummary, type SimpleGit } from 'simple-git';
import { deleteActorSnapshotRefs } from './actorSnapshot';
import { DependencyMergeError, WorkspaceError } from './errors';
import { createGit } from './git';
import { isAncestor, resolveCommit, splitNul, statusSnapshot, unmergedFiles } from './gitQueries';
import { gitVersion } from './repoInspector';
import { clearStaleIndexLock, mergeInProgressAt, readTaskBase, recordTaskBase, worktreeGitDir } from './worktreeFiles';
import { parseWorktreeList, type WorktreeEntry } from './worktreeList';

export interface RepoLocation {
  root: string;
  gitCommonDir: string;
}

export interface PrepareTaskOptions {
  taskId: string;
  runBaseCommit: string;
  /** Branches of the tasks this one depends on, merged in this order. */
  dependencyBranches: string[];
  /** true starts over from the run base; false reuses a complete worktree left by an earlier attempt. */
  fresh: boolean;
}

export interface PreparedTaskWorktree {
  path: string;
  branch: string;
  /** Run base plus the dependency merges: what the task's diff is measured against. */
  baseCommit: string;
  reused: boolean;
}

export type MergeOutcome =
  | { status: 'merged'; commit: string }
  | { status: 'already'; commit: string }
  | { status: 'conflict'; files: string[] };

export interface CleanupResult {
  removed: string[];
  kept: Array<{ taskId: string; reason: string }>;
}

const INTEGRATION_NAME = '@integration';

/** Ids end up in branch names and paths, so only plain names are allowed. */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

const FULL_HASH = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/**
 * Owns the branches and worktrees of one run:
 *   task branch      taskloom/<runId>/<taskId>     worktree <root>/.taskloom/worktrees/<runId>/<taskId>
 *   integration      taskloom/<runId>/integration  worktree <root>/.taskloom/worktrees/<runId>/@integration
 *   task base        recorded in the task worktree's git directory once preparation finished
 * Worktrees live under `.taskloom/`, which git ignores (info/exclude), so they never show as the
 * user's work. Not under `.git/`: Claude Code refuses to write any path inside a `.git` folder,
 * and inside the repository the project's own node_modules still resolve for the gate.
 * Every method can be repeated after a crash at any point.
 */
export class WorktreeManager {
  readonly worktreeDir: string;
  readonly integrationBranch: string;
  readonly integrationPath: string;
  /** Runs in the user's main worktree: only for commands that do not touch its files. */
  private readonly git: SimpleGit;

  constructor(
    private readonly repo: RepoLocation,
    readonly runId: string,
  ) {
    assertSafeId(runId, 'run id');
    this.worktreeDir = join(repo.root, '.taskloom', 'worktrees', runId);
    this.integrationBranch = `taskloom/${runId}/integration`;
    this.integrationPath = join(this.worktreeDir, INTEGRATION_NAME);
    this.git = createGit(repo.root);
  }

  taskBranch(taskId: string): string {
    assertSafeId(taskId, 'task id');
    return `taskloom/${this.runId}/${taskId}`;
  }

  taskPath(taskId: string): string {
    assertSafeId(taskId, 'task id');
    return join(this.worktreeDir, taskId);
  }

  async prepareTaskWorktree(options: PrepareTaskOptions): Promise<PreparedTaskWorktree> {
    const { taskId, runBaseCommit, dependencyBranches, fresh } = options;
    const path = this.taskPath(taskId);
    const branch = this.taskBranch(taskId);
    return this.exclusive(async () => {
      if (!fresh) {
        const reusable = await this.reusableTaskWorktree(taskId);
        if (reusable) return reusable;
      }
      await this.discardWorktree(path, branch);
      await this.addWorktree(['-B', branch, path, runBaseCommit], branch);

      const wt = createGit(path);
      const merged: string[] = [];
      for (const dependency of dependencyBranches) {
        await this.mergeDependency(wt, path, taskId, dependency, merged);
        merged.push(dependency);
      }
      const baseCommit =
        dependencyBranches.length === 0 && FULL_HASH.test(runBaseCommit)
          ? runBaseCommit
          : (await wt.raw(['rev-parse', 'HEAD'])).trim();
      await recordTaskBase(path, baseCommit);
      return { path, branch, baseCommit, reused: false };
    });
  }

  /** Snapshots everything in the worktree (new, changed, deleted files) as one commit, if anything changed. */
  async commitAll(path: string, message: string): Promise<{ commit: string; filesChanged: string[] } | null> {
    const wt = createGit(path);
    await wt.raw(['add', '-A']);
    // --no-verify: the user's hooks are for their commits, not for agent snapshots. git exits 1 with
    // this message (on stdout, so simple-git does not throw) when the snapshot would be empty.
    const output = await wt.raw(['commit', '--no-verify', '-q', '-m', message]);
    if (/nothing (added )?to commit|no changes added to commit/.test(output)) return null;
    // `HASH\0\nfile\0file\0…`: the hash, then the paths the commit touched (deletions included).
    const log = await wt.raw(['log', '-1', '--format=%H', '--name-only', '--no-renames', '-z']);
    const [commit = '', ...files] = splitNul(log);
    return { commit: commit.trim(), filesChanged: files.map((f, i) => (i === 0 ? f.replace(/^\n/, '') : f)) };
  }

  /**
   * The worktree's whole change against `baseCommit`: commits, staged, unstaged and untracked files.
   * Untracked files are staged in a scratch copy of the index, so the worktree's own index is untouched.
   */
  async diffFromBase(path: string, baseCommit: string): Promise<string> {
    const indexPath = join(worktreeGitDir(path), 'index');
    const scratchDir = await mkdtemp(join(tmpdir(), 'taskloom-diff-'));
    const scratchIndex = join(scratchDir, 'index');
    try {
      if (existsSync(indexPath)) {
        // Copying keeps git's stat cache, so unchanged files are not re-read. The copy must keep the
        // index's mtime (Date truncates it slightly downwards, the safe side): git compares it with
        // file mtimes to spot files edited too quickly to show in their stat data ("racy git"), and a
        // fresh mtime would make it trust stale stat data and miss same-size edits.
        const original = await stat(indexPath);
        await copyFile(indexPath, scratchIndex);
        await utimes(scratchIndex, original.atime, original.mtime);
      }
      const scratch = createGit(path, { env: { GIT_INDEX_FILE: scratchIndex } });
      await scratch.raw(['add', '-A']);
      return await scratch.raw([
        'diff',
        '--cached',
        '--no-color',
        '--no-ext-diff',
        '--src-prefix=a/',
        '--dst-prefix=b/',
        baseCommit,
        '--',
      ]);
    } finally {
      await rm(scratchDir, { recursive: true, force: true });
    }
  }

  /** The integration worktree, created on first use; after a crash it is reused and brought back to a clean state. */
  async prepareIntegration(runBaseCommit: string): Promise<{ path: string; branch: string }> {
    const path = this.integrationPath;
    const branch = this.integrationBranch;
    return this.exclusive(async () => {
      const entry = await this.registeredAt(path);
      if (entry && entry.branch === branch && isDirectory(path)) {
        await this.restoreCleanIntegration();
        return { path, branch };
      }
      await this.discardWorktree(path, branch);
      // An existing integration branch holds merges already made: check it out, never reset it.
      const existing = await resolveCommit(this.git, `refs/heads/${branch}`);
      await this.addWorktree(existing ? [path, branch] : ['-b', branch, path, runBaseCommit], branch);
      return { path, branch };
    });
  }

  /**
   * Merges a task branch into integration with --no-ff. A task already contained in integration is
   * reported as 'already', so a resumed run never merges twice. A conflict is aborted, leaving the
   * integration worktree clean for the next merge.
   */
  async mergeTask(taskId: string, message: string): Promise<MergeOutcome> {
    const branch = this.taskBranch(taskId);
    return this.exclusive(async () => {
      const wt = this.integrationGit();
      const [head, tip] = (await wt.raw(['rev-parse', 'HEAD', `refs/heads/${branch}`]).catch(() => ''))
        .trim()
        .split('\n');
      if (!tip || !head) {
        throw new WorkspaceError(`Task branch ${branch} does not exist`, 'Run the task again so it has a branch to merge.');
      }
      if (await isAncestor(wt, tip, head)) {
        return { status: 'already', commit: await this.commitThatBroughtIn(wt, tip, head) };
      }
      let failure: unknown = null;
      try {
        await wt.merge(['--no-ff', ...(await mergeNoVerify()), '-m', message, branch]);
      } catch (error) {
        failure = error;
      }
      const after = (await wt.raw(['rev-parse', 'HEAD'])).trim();
      if (!failure && after !== head) return { status: 'merged', commit: after };

      // Conflicted (or failed some other way): read the conflicted files from the index, then abort.
      const files = await unmergedFiles(wt);
      if (mergeInProgressAt(this.integrationPath)) await wt.raw(['merge', '--abort']);
      if (files.length === 0 && failure instanceof GitResponseError) {
        files.push(...((failure.git as MergeSummary).conflicts ?? []).flatMap((c) => (c.file ? [c.file] : [])));
      }
      if (files.length > 0) return { status: 'conflict', files };
      throw new WorkspaceError(
        `Merging ${branch} into ${this.integrationBranch} failed: ${errorText(failure) || 'the merge made no commit'}`,
        'Look at the integration worktree; retrying the merge is safe.',
        { cause: failure },
      );
    });
  }

  async integrationHead(): Promise<string> {
    const head = await resolveCommit(this.git, `refs/heads/${this.integrationBranch}`);
    if (!head) {
      throw new WorkspaceError(`${this.integrationBranch} does not exist yet`, 'Prepare the integration worktree first.');
    }
    return head;
  }

  /** Removes the task's worktree; its branch (and so its commits) stays. */
  async removeTaskWorktree(taskId: string): Promise<void> {
    const path = this.taskPath(taskId);
    await this.exclusive(() => this.discardWorktree(path, null));
  }

  /**
   * Removes the integration worktree once the run is done, so no checkout of the run is left
   * inside the repository for the user's tools to find; the integration branch stays.
   */
  async removeIntegrationWorktree(): Promise<void> {
    await this.exclusive(async () => {
      await this.discardWorktree(this.integrationPath, null);
      // Only when empty: worktrees kept for a human stay where they are.
      await rmdir(this.worktreeDir).catch(() => undefined);
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
      for (const entry of ours) await this.discardWorktree(entry.path, null);
      await rm(this.worktreeDir, { recursive: true, force: true });
      await this.git.raw(['worktree', 'prune']);
      // A pattern without a trailing slash matches whole path components: run "r1" never matches "r10".
      const refs = await this.git.raw(['for-each-ref', '--format=%(refname:short)', `refs/heads/taskloom/${this.runId}`]);
      const branches = refs.split('\n').map((b) => b.trim()).filter(Boolean);
      if (branches.length) await this.git.raw(['branch', '-D', '-q', ...branches]);
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
        await this.discardWorktree(entry.path, null);
        result.removed.push(taskId);
      }
      for (const taskId of greenTaskIds.filter((id) => !seen.has(id))) {
        const tip = await resolveCommit(this.git, `refs/heads/${this.taskBranch(taskId)}`);
        if (tip && !(integration && (await isAncestor(this.git, tip, integration)))) {
          result.kept.push({ taskId, reason: 'GREEN work not merged into integration (branch kept)' });
        }
      }
      await this.git.raw(['worktree', 'prune']);
      return result;
    });
  }

  /** Every worktree registered in the repository (the user's too), from `git worktree list --porcelain`. */
  async listWorktrees(): Promise<WorktreeEntry[]> {
    return parseWorktreeList(await this.git.raw(['worktree', 'list', '--porcelain']));
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

  private async mergeDependency(
    wt: SimpleGit,
    path: string,
    taskId: string,
    dependency: string,
    merged: string[],
  ): Promise<void> {
    let failure: unknown = null;
    try {
      await wt.merge(['--no-ff', '--no-edit', ...(await mergeNoVerify()), dependency]);
    } catch (error) {
      failure = error;
    }
    // "Already up to date" leaves HEAD where it was, so a stopped merge is recognised by MERGE_HEAD.
    const stopped = mergeInProgressAt(path);
    if (!failure && !stopped) return;
    const files = await unmergedFiles(wt);
    if (stopped) await wt.raw(['merge', '--abort']);
    if (files.length > 0 || failure instanceof GitResponseError || stopped) {
      throw new DependencyMergeError(taskId, dependency, [...merged], files);
    }
    if (/not something we can merge/i.test(errorText(failure))) {
      throw new WorkspaceError(
        `Task "${taskId}" depends on ${dependency}, which does not exist`,
        'Run the dependency first; its branch is what this task builds on.',
        { cause: failure },
      );
    }
    throw failure;
  }

  private async restoreCleanIntegration(): Promise<void> {
    await clearStaleIndexLock(this.integrationPath);
    const wt = createGit(this.integrationPath);
    if (mergeInProgressAt(this.integrationPath)) await wt.raw(['merge', '--abort']);
    // Only Taskloom writes here and it commits every merge, so leftovers are crash debris.
    if ((await statusSnapshot(wt)).paths.length > 0) {
      await wt.raw(['reset', '--hard', '-q', 'HEAD']);
      await wt.raw(['clean', '-fdq']);
    }
  }

  private integrationGit(): SimpleGit {
    if (!isDirectory(this.integrationPath)) {
      throw new WorkspaceError(
        `The integration worktree of run ${this.runId} is missing`,
        'Prepare the integration worktree before merging.',
      );
    }
    return createGit(this.integrationPath);
  }

  /** The first integration commit (following first parents) that contains `tip`. */
  private async commitThatBroughtIn(wt: SimpleGit, tip: string, head: string): Promise<string> {
    const out = await wt.raw(['rev-list', '--first-parent', '--ancestry-path', '--reverse', `${tip}..${head}`]);
    return out.split('\n')[0]?.trim() || head;
  }

  private async reasonToKeep(
    taskId: string,
    entry: WorktreeEntry,
    integration: string | null,
    isGreen: boolean,
  ): Promise<string | null> {
    if (!SAFE_ID.test(taskId)) return 'not a Taskloom task worktree';
    // The worktree's HEAD is its branch tip (or the commit checked out when detached).
    const tip = entry.head;
    if (!tip) return 'no commit checked out';
    if (!integration || !(await isAncestor(this.git, tip, integration))) {
      return isGreen ? 'GREEN work not merged into integration' : 'work not merged into integration';
    }
    if (isDirectory(entry.path) && (await statusSnapshot(createGit(entry.path))).paths.length > 0) {
      return 'uncommitted changes in the worktree';
    }
    return null;
  }

  private async registeredAt(path: string): Promise<WorktreeEntry | undefined> {
    return (await this.listWorktrees()).find((e) => samePath(e.path, path));
  }

  /**
   * Gets rid of whatever occupies `path` (a registered worktree, a locked half-created one, a stray
   * directory) and of other Taskloom worktrees of this run holding `branch`, so it can be added again.
   */
  private async discardWorktree(path: string, branch: string | null): Promise<void> {
    const stale = (await this.listWorktrees()).filter(
      (e) => samePath(e.path, path) || (branch !== null && e.branch === branch && isInside(e.path, this.worktreeDir)),
    );
    const strayDirectory = existsSync(path);
    if (stale.length === 0 && !strayDirectory) return;
    for (const entry of stale) {
      // A crash during `worktree add` leaves it locked ("initializing"); prune skips locked entries.
      if (entry.locked) await this.git.raw(['worktree', 'unlock', entry.path]).catch(() => undefined);
      if (isDirectory(entry.path)) {
        await this.git.raw(['worktree', 'remove', '--force', '--force', entry.path]).catch(() => undefined);
      }
      await rm(entry.path, { recursive: true, force: true });
    }
    await rm(path, { recursive: true, force: true });
    await this.git.raw(['worktree', 'prune']);
  }

  private async addWorktree(args: string[], branch: string): Promise<void> {
    try {
      await this.git.raw(['worktree', 'add', '-q', ...args]);
    } catch (error) {
      if (/already (checked out|used by worktree)/i.test(errorText(error))) {
        throw new WorkspaceError(
          `Branch ${branch} is checked out in another worktree`,
          `Switch that worktree to another branch (see \`git worktree list\`), then resume the run.`,
          { cause: error },
        );
      }
      throw error;
    }
  }

  /** One repository-changing operation at a time: git's own locks would make parallel ones fail, not wait. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const key = this.repo.gitCommonDir;
    const result = (queues.get(key) ?? Promise.resolve()).then(work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    queues.set(key, tail);
    void tail.then(() => {
      if (queues.get(key) === tail) queues.delete(key);
    });
    return result;
  }
}

const queues = new Map<string, Promise<void>>();

let mergeNoVerifyFlags: Promise<string[]> | undefined;
/** `merge --no-verify` (skip the user's pre-merge-commit/commit-msg hooks) exists from git 2.24. */
function mergeNoVerify(): Promise<string[]> {
  mergeNoVerifyFlags ??= gitVersion().then(
    ({ version }) => {
      const [major = 0, minor = 0] = version.split('.').map(Number);
      return major > 2 || (major === 2 && minor >= 24) ? ['--no-verify'] : [];
    },
    (error: unknown) => {
      mergeNoVerifyFlags = undefined; // ask again next time rather than remember a failure
      throw error;
    },
  );
  return mergeNoVerifyFlags;
}

function assertSafeId(id: string, what: string): void {
  if (!SAFE_ID.test(id) || id.includes('..') || id.endsWith('.lock')) {
    throw new WorkspaceError(
      `Invalid ${what} "${id}"`,
      'Ids may use letters, digits, ".", "_" and "-" (starting with a letter or digit), as they become branch names.',
    );
  }
}

function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

function canonical(path: string): string {
  return existsSync(path) ? realpathSync(path) : resolve(path);
}

function samePath(a: string, b: string): boolean {
  return canonical(a) === canonical(b);
}

function isInside(path: string, dir: string): boolean {
  const child = canonical(path);
  const parent = canonical(dir);
  return child.startsWith(parent + '/') || child.startsWith(parent + '\\');
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : error ? String(error) : '';
}
