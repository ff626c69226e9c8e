import type { AgentKind } from '../engine/domain/runConfig';

/**
 * The `taskloom.*` settings that shape a new run, as the extension reads them. The server
 * turns them into a RunConfig (src/engine/run/runConfigFromSettings.ts) with the same defaults
 * and checks as the CLI's flags.
 */
export interface RoleSetting {
  agent?: string;
  model?: string;
}

export interface RunSettings {
  agent: AgentKind;
  models: { planner?: string; actor?: string; critic?: string };
  /** A role's own agent and model (`taskloom.roles.<role>.*`); unset parts fall back to `agent` and `models`. */
  roles?: { planner?: RoleSetting; actor?: RoleSetting; critic?: RoleSetting };
  claudePath?: string;
  codexPath?: string;
  /** The command agent's argv template ({prompt_file}, {model}, {cwd}, {role}, {access}). */
  commandArgv?: string[];
  /** The scripted agent's scenario file (absolute, or relative to the folder). */
  scriptedScenario?: string;
  maxParallel: number;
  /** Empty: detected from the project (package.json scripts, Makefile…). */
  gateCommands: string[];
  /** Commands the actor may run besides the gate's (Claude Code enforces the list). */
  actorAllowedCommands?: string[];
  maxAttempts: number;
  maxReviewCycles: number;
  stuckThresholdSeconds: number;
  gateTimeoutSeconds: number;
  budgets: { runUsd?: number; runTokens?: number; taskUsd?: number; taskTokens?: number };
  /** Tasks whose files hints overlap: 'serialize' (default), 'warn' or 'off'. */
  overlap?: string;
  /** gitignore patterns of untracked files copied into each new worktree, besides `.worktreeinclude`'s. */
  worktreeCopy?: string[];
  /** Commands run once in each new worktree before its actor starts. */
  worktreeSetup?: string[];
  /** Where worktrees live: 'inside' (the default, `.taskloom/worktrees`) or a folder, relative to the repository. */
  worktreeRoot?: string;
}
