import { existsSync } from 'node:fs';
import { constants, copyFile, lstat, mkdir, readFile, readlink, stat, symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { hideValues, secretValuesInText } from '../io/redactSecrets';
import { Git } from './git';
import { splitNul } from './gitQueries';

/** The file at the repository root naming untracked files each worktree gets a copy of (Claude Code's and Cline's convention). */
export const WORKTREE_INCLUDE_FILE = '.worktreeinclude';

/** What copying brought into a worktree. */
export interface IncludedFiles {
  /** Files copied from the main checkout (symlinks as symlinks), relative to the repository root. */
  copied: string[];
  /**
   * Files the patterns name that git does not ignore in the worktree: a copy would be committed
   * with the task's work, so they are left out.
   */
  notIgnored: string[];
}

/**
 * Copies into `worktree` the untracked files of the main checkout at `repoRoot` that the
 * patterns name (gitignore syntax: `.worktreeinclude`'s lines, then `patterns`, which git gives
 * precedence) and that git ignores in the worktree, to the same relative paths. git itself
 * matches the patterns (`ls-files --others --ignored --exclude-from`), so the syntax is exactly
 * gitignore's. Never from `.git/` or `.taskloom/`, never over a file the worktree already has.
 */
export async function copyIncludedFiles(repoRoot: string, worktree: string, patterns: readonly string[]): Promise<IncludedFiles> {
  const candidates = await includedPaths(repoRoot, patterns);
  if (candidates.length === 0) return { copied: [], notIgnored: [] };
  await hideSecretsOf(repoRoot, candidates);
  const ignored = new Set(await ignoredIn(worktree, candidates));
  const result: IncludedFiles = { copied: [], notIgnored: [] };
  for (const path of candidates) {
    if (!ignored.has(path)) {
      result.notIgnored.push(path);
      continue;
    }
    if (await copyOne(join(repoRoot, path), join(worktree, path))) result.copied.push(path);
  }
  return result;
}

/** The untracked files of the main checkout that the patterns name, relative to the repository root. */
export async function includedPaths(repoRoot: string, patterns: readonly string[]): Promise<string[]> {
  const includeFile = join(repoRoot, WORKTREE_INCLUDE_FILE);
  const hasFile = existsSync(includeFile);
  if (!hasFile && patterns.length === 0) return [];
  const listed = await new Git(repoRoot).run([
    'ls-files', '-z', '--others', '--ignored',
    ...(hasFile ? [`--exclude-from=${includeFile}`] : []),
    ...patterns.map((p) => `--exclude=${p}`),
    '--', '.', ':(exclude).taskloom', ':(exclude).git',
  ]);
  return splitNul(listed.stdout).filter((path) => path !== '' && !path.split('/').some((part) => part === '.git' || part === '.taskloom'));
}

/**
 * Makes this process redact the secret values of the files worktrees get copies of (`.env`,
 * local configuration), as it does the environment's: agents and gates read those copies and may
 * print them. Called before anything runs in a worktree, also when its copies were made by an
 * earlier process (a resume).
 */
export async function hideIncludedSecrets(repoRoot: string, patterns: readonly string[]): Promise<void> {
  await hideSecretsOf(repoRoot, await includedPaths(repoRoot, patterns));
}

/** Larger files are data, not configuration: they are not read for secrets. */
const SECRETS_FILE_MAX_BYTES = 256 * 1024;

async function hideSecretsOf(repoRoot: string, paths: readonly string[]): Promise<void> {
  for (const path of paths) {
    const info = await stat(join(repoRoot, path)).catch(() => undefined);
    if (!info?.isFile() || info.size > SECRETS_FILE_MAX_BYTES) continue;
    const text = await readFile(join(repoRoot, path), 'utf8').catch(() => '');
    if (!text.includes('\0')) hideValues(secretValuesInText(text));
  }
}

/** The paths git ignores in `worktree` (its own .gitignore files, the repository's excludes). */
async function ignoredIn(worktree: string, paths: string[]): Promise<string[]> {
  // On stdin: as arguments the paths would come back quoted. Exit 1: none is ignored.
  const { stdout } = await new Git(worktree).run(['check-ignore', '-z', '--stdin'], { input: paths.map((p) => `${p}\0`).join(''), accept: [0, 1] });
  return splitNul(stdout);
}

async function copyOne(from: string, to: string): Promise<boolean> {
  if (existsSync(to)) return false;
  const info = await lstat(from).catch(() => undefined);
  if (!info || !(info.isFile() || info.isSymbolicLink())) return false;
  await mkdir(dirname(to), { recursive: true });
  if (info.isSymbolicLink()) {
    await symlink(await readlink(from), to);
  } else {
    await copyFile(from, to, constants.COPYFILE_EXCL);
  }
  return true;
}
