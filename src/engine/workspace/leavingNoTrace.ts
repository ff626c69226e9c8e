import { realpathSync } from 'node:fs';
import { forgetRecord, interruptedRecord, saveRecord } from './checkoutRecordFile';
import { WorkspaceError } from './errors';
import { Git } from './git';
import { headCommitOf, splitNul } from './gitQueries';
import { keptOutputs, removeInside } from './gateOutputs';

// A gate runs the project's own commands in a checkout whose work is committed, and whatever they
// write there (bytecode, caches, coverage, reports, build outputs, a formatter's rewrite) would be
// taken by the next `git add -A` into the task's work. So the checkout is put back exactly as the
// gate found it, except for the outputs the user said a gate writes into the work.

/** A checkout as a gate found it. */
export interface CheckoutRecord {
  /** The checkout's real path: nothing outside it is ever touched. */
  dir: string;
  head: string;
  /** Tracked paths that already differed from HEAD: not the gate's doing, so left as they are. */
  changedBefore: ReadonlySet<string>;
  /** Untracked and ignored entries as git lists them: a folder holding nothing tracked is one entry, `name/` (`node_modules/`, `.venv/`). */
  untrackedBefore: ReadonlySet<string>;
}

/** What putting a checkout back did. */
export interface CheckoutReturn {
  /** Tracked files the gate changed, added or deleted, now as HEAD has them. */
  restored: string[];
  /** Untracked and ignored entries the gate made, removed (a folder as `name/`). */
  removed: string[];
  /** What the gate wrote that `keepOutputs` names, left as it is for the next commit to take. */
  kept: string[];
}

/**
 * Runs `gate` in the checkout `cwd` and then puts the checkout back as it was before: tracked files
 * as they were (HEAD's, unless already changed), and every untracked or ignored entry the gate made
 * removed, but those `keepOutputs` (glob patterns from the checkout's root) match. What was there
 * before (what setup installed: `node_modules/`, `.venv/`) stays, with whatever the gate wrote
 * inside it. The checkout is put back even when `gate` throws, and, when the process died during
 * the gate, by the next gate in the same checkout (before it records the checkout anew).
 */
export async function leavingNoTrace<T>(cwd: string, keepOutputs: readonly string[], gate: () => Promise<T>): Promise<T> {
  const record = await putBack(cwd, async () => {
    await finishInterruptedGate(cwd, keepOutputs);
    const made = await recordCheckout(cwd);
    saveRecord(made.dir, { head: made.head, changedBefore: [...made.changedBefore], untrackedBefore: [...made.untrackedBefore] });
    return made;
  });
  try {
    return await gate();
  } finally {
    await putBack(cwd, async () => {
      await returnCheckout(record, keepOutputs);
      await forgetRecord(record.dir);
    });
  }
}

/**
 * A gate that never finished (a crash, a kill) left its record: the checkout goes back to it, as
 * that gate's end would have done. Only while HEAD is where that gate found it: once anything
 * committed since, what is in the checkout is that commit's work, not the gate's leftovers.
 */
async function finishInterruptedGate(cwd: string, keepOutputs: readonly string[]): Promise<void> {
  const dir = realpathSync(cwd);
  const saved = await interruptedRecord(dir);
  if (!saved) return;
  if (saved.head === (await headCommitOf(new Git(dir)))) {
    await returnCheckout({ dir, head: saved.head, changedBefore: new Set(saved.changedBefore), untrackedBefore: new Set(saved.untrackedBefore) }, keepOutputs);
  }
  await forgetRecord(dir);
}

/** `work` on the checkout, its failure said as what it means for the gate's by-products. */
async function putBack<T>(cwd: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw new WorkspaceError(
      `Could not keep the gate's by-products out of ${cwd}: ${(error as Error).message.trim()}`,
      'Check that the worktree is a healthy checkout, then retry the task.',
      { cause: error },
    );
  }
}

/** Three git commands: HEAD, the tracked paths already changed, the untracked and ignored entries. */
export async function recordCheckout(cwd: string): Promise<CheckoutRecord> {
  const dir = realpathSync(cwd);
  const git = new Git(dir);
  const head = await headCommitOf(git);
  const changed = await changedTracked(git, head);
  return { dir, head, changedBefore: new Set(changed.map((c) => c.path)), untrackedBefore: new Set(await untrackedEntries(git)) };
}

/** Puts the checkout back as `record` found it (see leavingNoTrace); tracked files first, so what was deleted is back before the untracked are listed. */
export async function returnCheckout(record: CheckoutRecord, keepOutputs: readonly string[]): Promise<CheckoutReturn> {
  const git = new Git(record.dir);
  const keep = keptOutputs(keepOutputs);
  // A gate that committed moved the branch: it goes back, keeping the gate's files for the steps below to judge.
  if ((await headCommitOf(git)) !== record.head) await git.run(['reset', '-q', '--soft', record.head]);
  const kept: string[] = [];
  const restored: string[] = [];
  const inHead: string[] = [];
  for (const { status, path } of await changedTracked(git, record.head)) {
    if (record.changedBefore.has(path)) continue;
    if (keep.matches(path)) kept.push(path);
    else {
      restored.push(path);
      if (status !== 'A') inHead.push(path);
    }
  }
  // The index first (a path the gate added leaves it, and is then removed as untracked), then the files from it.
  await inChunks(restored, (paths) => git.run(['--literal-pathspecs', 'reset', '-q', record.head, '--', ...paths]));
  await inChunks(inHead, (paths) => git.run(['--literal-pathspecs', 'checkout', '-q', '--', ...paths]));
  const removed: string[] = [];
  for (const entry of await untrackedEntries(git)) {
    if (record.untrackedBefore.has(entry)) continue;
    const outcome = await removeInside(record.dir, entry, keep);
    kept.push(...outcome.kept);
    if (outcome.removed) removed.push(entry);
  }
  return { restored, removed, kept };
}

interface TrackedChange {
  /** git's letter: A (in the index, not in `head`), M, D, T. */
  status: string;
  path: string;
}

/** Tracked paths whose file or index entry differs from `head`. */
async function changedTracked(git: Git, head: string): Promise<TrackedChange[]> {
  const fields = splitNul((await git.run(['diff', '--name-status', '--no-renames', '-z', head])).stdout);
  const changes: TrackedChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) changes.push({ status: fields[i]!, path: fields[i + 1]! });
  return changes;
}

/** Every untracked path, ignored ones too (no exclude rules), a folder holding nothing tracked as one entry. */
async function untrackedEntries(git: Git): Promise<string[]> {
  return splitNul((await git.run(['ls-files', '--others', '--directory', '-z'])).stdout);
}

/** Paths go to git as arguments: a few hundred at a time stay far below any system's limit. */
const PATHS_PER_COMMAND = 500;

async function inChunks(paths: string[], run: (chunk: string[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < paths.length; i += PATHS_PER_COMMAND) await run(paths.slice(i, i + PATHS_PER_COMMAND));
}
