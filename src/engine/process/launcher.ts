import { runProcess, type ProcessResult, type RunProcessOptions } from './processGroup';

/** What a program needs besides the checkout it works in, for a sandbox to let it run (src/engine/sandbox). */
export interface ProgramNeeds {
  /** Read-only: the program's own files (an agent's package, the scripted agent and its scenario, a prompt file). */
  readable?: string[];
  /** Read-write folders, made when missing: the agent's own state (Claude Code's config folder, CODEX_HOME), which must outlive the call. */
  writable?: string[];
  /** Read-write files, where they exist (`~/.claude.json`). */
  writableFiles?: string[];
  /** `host:port` of its model API. */
  hosts?: string[];
}

export interface LaunchOptions extends RunProcessOptions {
  needs?: ProgramNeeds;
}

/**
 * Starts one process on a task's behalf. Every agent, setup command and gate starts through one:
 * the run's (src/engine/sandbox/taskLauncher.ts) confines it; `launchUnconfined` is for what runs
 * on the user's own behalf (`doctor` asking an agent its version) and for tests of a runner alone.
 */
export type ProcessLauncher = (options: LaunchOptions) => Promise<ProcessResult>;

export const launchUnconfined: ProcessLauncher = ({ needs: _needs, ...options }) => runProcess(options);
