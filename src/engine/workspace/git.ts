import { simpleGit, type SimpleGit } from 'simple-git';

/**
 * Identity for Taskloom's own commits (agent snapshots, dependency and integration merges), so they
 * work on machines with no git identity. `commit.gpgsign=false` because a signing prompt would hang a
 * headless run; `color.ui=false` because a user's `color.ui=always` would put escape codes in output
 * we parse or hand to the critic.
 */
const TASKLOOM_CONFIG = ['user.name=Taskloom', 'user.email=taskloom@localhost', 'commit.gpgsign=false'];
const OUTPUT_CONFIG = ['color.ui=false'];

/**
 * Besides every GIT_* variable, simple-git's guard rejects these when they are in an env object we
 * pass (a user with EDITOR set would otherwise see every git command fail).
 */
const GUARDED_NON_GIT_KEYS = new Set(['editor', 'visual', 'pager', 'prefix', 'ssh_askpass']);

export interface CreateGitOptions {
  /** false keeps the user's own identity and signing settings (for commands run on the user's behalf). */
  taskloomIdentity?: boolean;
  /** Extra variables, e.g. GIT_INDEX_FILE; GIT_* names listed here are let through the guard on purpose. */
  env?: Record<string, string>;
}

/** process.env without the variables simple-git refuses, plus LC_ALL=C so git's messages are parseable. */
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

/** A simple-git instance for `dir`; every command it runs is counted in `gitTimings`. */
export function createGit(dir: string, options: CreateGitOptions = {}): SimpleGit {
  const extraEnv = options.env ?? {};
  const git = simpleGit({
    baseDir: dir,
    config: options.taskloomIdentity === false ? OUTPUT_CONFIG : [...TASKLOOM_CONFIG, ...OUTPUT_CONFIG],
    allowEnvironment: Object.keys(extraEnv),
  })
    .env({ ...cleanGitEnv(), ...extraEnv })
    .outputHandler(timeGitProcess);
  return git;
}

export interface GitTimings {
  commands: number;
  totalMs: number;
  busyMs: number;
  reset(): void;
}

interface TimingState {
  timings: GitTimings;
  running: number;
  busySince: number;
}

/**
 * Time spent in git child processes, process-wide, so a benchmark can subtract it from engine
 * overhead. `totalMs` sums every command (overlapping commands count twice); `busyMs` is the wall
 * time during which at least one git command was running, which is what to subtract from a wall
 * clock when tasks run in parallel.
 */
export const gitTimings: GitTimings = timingState().timings;

/**
 * Kept on globalThis so there is one accumulator per process even when this module is loaded twice
 * (tsx gives a file imported through both `import` and `require` two module instances).
 */
function timingState(): TimingState {
  const holder = globalThis as unknown as Record<symbol, TimingState | undefined>;
  const key = Symbol.for('taskloom.gitTimings');
  if (!holder[key]) {
    const state: TimingState = {
      running: 0,
      busySince: 0,
      timings: {
        commands: 0,
        totalMs: 0,
        busyMs: 0,
        reset(): void {
          state.timings.commands = 0;
          state.timings.totalMs = 0;
          state.timings.busyMs = 0;
          if (state.running > 0) state.busySince = performance.now();
        },
      },
    };
    holder[key] = state;
  }
  return holder[key];
}

function timeGitProcess(
  _command: string,
  stdout: NodeJS.ReadableStream,
  stderr: NodeJS.ReadableStream,
): void {
  const state = timingState();
  // From when simple-git hands over the child's streams: it has no public hook before the spawn.
  const started = performance.now();
  state.timings.commands++;
  if (state.running++ === 0) state.busySince = started;

  let producedOutput = false;
  const markOutput = (): void => {
    producedOutput = true;
  };
  stdout.once('data', markOutput);
  stderr.once('data', markOutput);

  let openStreams = 2;
  const onStreamClosed = (): void => {
    if (--openStreams > 0) return;
    const ended = performance.now();
    state.timings.totalMs += ended - started;
    if (--state.running === 0) state.timings.busyMs += ended - state.busySince;
    // simple-git sleeps 50 ms after any command that printed nothing (update-ref, add, is-ancestor…),
    // in case output is still in flight. Both pipes are closed here, so nothing can be: an empty chunk
    // tells it so and saves 50 ms per silent command (they are most of Taskloom's git calls).
    if (!producedOutput) stdout.emit('data', Buffer.alloc(0));
  };
  stdout.once('close', onStreamClosed);
  stderr.once('close', onStreamClosed);
}
