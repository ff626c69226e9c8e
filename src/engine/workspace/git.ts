// Taskloom's own git, not a task's process: it runs outside the sandbox, with every program a repository's
// config could name neutralised (repositoryPrograms.ts) and hooks off.
import { execFile } from 'node:child_process';
import { simpleGit, type SimpleGit } from 'simple-git';
import { clipEnd, clipMiddle } from '../text/clip';
import { configFilesOf, parseScopedConfig, PROGRAM_KEYS, programOverrides, stampOf, withoutProgramsConfig } from './repositoryPrograms';
import { assertWorktreePointer } from './worktreePointer';

/**
 * Taskloom runs git in two ways, by one rule:
 * - `git.typed`, simple-git's typed methods, where simple-git parses the answer we use: merge (its
 *   MergeSummary names the conflicts), status, version, and init/add/commit in the demo.
 * - `git.run`, git over execFile, for every other command: plumbing, commands that print nothing,
 *   questions git answers by its exit code, and output we parse ourselves (`-z`, `--porcelain`) or
 *   pass on as it is (a diff for the critic).
 * simple-git's `.raw()` is not used: it cannot say how git exited (a non-zero exit with nothing on
 * stderr counts as success), and it waits 50 ms after any command that printed nothing.
 *
 * Either way it runs no hook and no program the repository's config names (repositoryPrograms.ts),
 * unless `userPrograms` says the command is the user's own.
 */

/**
 * Identity for Taskloom's own commits (agent snapshots, dependency and integration merges), so they
 * work on machines with no git identity. `commit.gpgsign=false` because a signing prompt would hang a
 * headless run.
 */
const TASKLOOM_CONFIG = ['user.name=Taskloom', 'user.email=taskloom@localhost', 'commit.gpgsign=false'];
/**
 * For every command. `color.ui=false` because a user's `color.ui=always` would put escape codes in
 * output we parse or hand to the critic. `maintenance.auto=false` because a run's many commits would
 * each start git's automatic maintenance (a process per commit), whose gc, once due, runs detached
 * and packs refs while parallel worktrees commit; the user's own next git command still runs it.
 */
const EVERY_COMMAND_CONFIG = ['color.ui=false', 'maintenance.auto=false'];

/**
 * Besides every GIT_* variable, simple-git's guard rejects these when they are in an env object we
 * pass (a user with EDITOR set would otherwise see every git command fail). No git of ours opens an
 * editor or a pager anyway.
 */
const GUARDED_NON_GIT_KEYS = new Set(['editor', 'visual', 'pager', 'prefix', 'ssh_askpass']);

/** Never cut a real answer: the diff of a large change fits. */
const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;
const STDERR_KEPT = 2000;

export interface GitOptions {
  /** false keeps the user's own identity and signing settings (for commands run on the user's behalf). */
  taskloomIdentity?: boolean;
  /** Extra variables, e.g. GIT_INDEX_FILE; GIT_* names listed here are let through on purpose. */
  env?: Record<string, string>;
  /** Told about every git process (a benchmark times them); production code passes none. */
  observer?: GitObserver;
  /**
   * true: the repository's hooks and the programs its config names run, as under the user's own
   * git. Only for what the user does to their own branch (`apply`); Taskloom's own work never.
   */
  userPrograms?: boolean;
  /** The repository's common git dir, when `dir` is a linked worktree of it: its `.git` is checked before each command (assertWorktreePointer). */
  worktreeOf?: string;
}

/** Hears about each git process a Git runs. */
export interface GitObserver {
  /** A git process with these arguments starts now; the function returned is called once it has ended. */
  started(args: readonly string[]): () => void;
}

export interface GitResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** The exit codes that answer the question (e.g. [0, 1] for `merge-base --is-ancestor`); any other throws. Default [0]. */
  accept?: readonly number[];
  /** Written to git's stdin (which is otherwise empty). */
  input?: string;
}

/** git exited with a code its caller did not accept: callers decide by `exitCode`, never by the message. */
export class GitCommandError extends Error {
  constructor(
    readonly args: readonly string[],
    /** null when git did not exit by itself: it could not start (`systemCode`), was killed, or printed more than is read. */
    readonly exitCode: number | null,
    /** What git said on stderr, clipped. */
    readonly stderr: string,
    /** Why git could not run, as the system said it (ENOENT: no git on PATH). */
    readonly systemCode?: string,
  ) {
    super(`git ${clipEnd(args.join(' '), 200)} ${exitCode === null ? `did not finish${systemCode ? ` (${systemCode})` : ''}` : `exited with ${exitCode}`}${stderr ? `: ${stderr}` : ''}`);
    this.name = 'GitCommandError';
  }
}

/** process.env without GIT_* (a hook's GIT_DIR must not steer our git) and the keys simple-git refuses, plus LC_ALL=C. */
export function cleanGitEnv(base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value === undefined) continue;
    const lower = key.toLowerCase();
    if (lower.startsWith('git_') || GUARDED_NON_GIT_KEYS.has(lower)) continue;
    env[key] = value;
  }
  env.LC_ALL = 'C';
  return env;
}

/** git in one directory, with one identity, environment and observer, whichever way a command is run. */
export class Git {
  constructor(
    readonly dir: string,
    private readonly options: GitOptions = {},
  ) {}

  /** Runs `git <args>` in `dir`; an exit code outside `accept` throws GitCommandError. */
  async run(args: readonly string[], options: RunOptions = {}): Promise<GitResult> {
    return this.spawn(await this.config(), args, options);
  }

  /** simple-git for its typed methods (see the rule at the top of this file), with the config of this moment. */
  async typed(): Promise<SimpleGit> {
    return typedGit(this.dir, await this.config(), this.options);
  }

  /** `-c` settings for the next command; checks first that a worktree is still the repository's. */
  private async config(): Promise<string[]> {
    if (this.options.worktreeOf) assertWorktreePointer(this.dir, this.options.worktreeOf);
    const own = configOf(this.options);
    if (this.options.userPrograms) return own;
    return [...own, ...withoutProgramsConfig(), ...(await this.repositoryOverrides())];
  }

  /** programOverrides for `dir`, read again only when a config file they come from changed. */
  private async repositoryOverrides(): Promise<string[]> {
    const known = overridesByDir.get(this.dir);
    const files = known ? known.files : configFilesOf(this.dir, []);
    // Stamped before the read: a file written while git reads it stamps differently next time.
    const stamp = files ? stampOf(files) : null;
    if (known && stamp !== null && stamp === known.stamp) return known.overrides;
    // Exit 1: no such key anywhere.
    const listed = await this.spawn([], ['config', '-z', '--show-scope', '--show-origin', '--get-regexp', PROGRAM_KEYS], { accept: [0, 1] });
    const entries = parseScopedConfig(listed.stdout);
    const readFrom = configFilesOf(this.dir, entries);
    const overrides = programOverrides(entries);
    // A file newly included was not stamped: read again next time, which stamps it.
    const sameFiles = files !== null && readFrom !== null && files.join('\0') === readFrom.join('\0');
    overridesByDir.set(this.dir, { files: readFrom, stamp: sameFiles ? stamp : null, overrides });
    return overrides;
  }

  private spawn(config: readonly string[], args: readonly string[], { accept = [0], input = '' }: RunOptions): Promise<GitResult> {
    const ended = this.options.observer?.started(args);
    return new Promise((resolve, reject) => {
      const child = execFile(
        'git',
        [...config.flatMap((entry) => ['-c', entry]), ...args],
        { cwd: this.dir, env: { ...cleanGitEnv(), ...this.options.env }, maxBuffer: MAX_OUTPUT_BYTES, encoding: 'utf8' },
        (error, stdout, stderr) => {
          ended?.();
          const exitCode = !error ? 0 : typeof error.code === 'number' ? error.code : null;
          if (exitCode !== null && accept.includes(exitCode)) {
            resolve({ exitCode, stdout, stderr });
            return;
          }
          const systemCode = typeof error?.code === 'string' ? error.code : undefined;
          reject(new GitCommandError(args, exitCode, clipMiddle(stderr.trim(), STDERR_KEPT), systemCode));
        },
      );
      // git may exit before it reads all of its input (or never start): that is its answer, not ours to report.
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(input);
    });
  }
}

/** The last overrides read per checkout, with the config files they were read from (null: read each time) and their stamp. */
const overridesByDir = new Map<string, { files: string[] | null; stamp: string | null; overrides: string[] }>();

function configOf(options: GitOptions): string[] {
  return options.taskloomIdentity === false ? EVERY_COMMAND_CONFIG : [...TASKLOOM_CONFIG, ...EVERY_COMMAND_CONFIG];
}

/**
 * simple-git refuses `-c` keys that name programs. Ours are the settings that keep the repository's
 * programs from running (repositoryPrograms.ts), set to nothing, to git itself or to the user's
 * own global value; commands typed through simple-git take no other `-c`.
 */
const PROGRAM_KEYS_WE_SET = {
  allowUnsafeHooksPath: true,
  allowUnsafeFsMonitor: true,
  allowUnsafeDiffExternal: true,
  allowUnsafeDiffTextConv: true,
  allowUnsafeProtocolOverride: true,
  allowUnsafeFilter: true,
  allowUnsafeMergeDriver: true,
  allowUnsafeCredentialHelper: true,
  allowUnsafeSshCommand: true,
  allowUnsafeAskPass: true,
  allowUnsafeGpgProgram: true,
  allowUnsafePack: true,
};

function typedGit(dir: string, config: string[], options: GitOptions): SimpleGit {
  const extraEnv = options.env ?? {};
  const git = simpleGit({ baseDir: dir, config, allowEnvironment: Object.keys(extraEnv), unsafe: PROGRAM_KEYS_WE_SET }).env({
    ...cleanGitEnv(),
    ...extraEnv,
  });
  const observer = options.observer;
  if (!observer) return git;
  // From when simple-git hands over the child's streams (it has no public hook before the spawn) until both are closed.
  return git.outputHandler((_command, stdout, stderr, args) => {
    const ended = observer.started(args);
    let open = 2;
    const onClose = (): void => {
      if (--open === 0) ended();
    };
    stdout.once('close', onClose);
    stderr.once('close', onClose);
  });
}
