import { WORKTREE_COPIED_LISTED, type GateCommandResult } from '../domain/events';
import { runGate, type GateResult } from '../gate/runGate';
import { copyIncludedFiles } from '../workspace/worktreeInclude';
import type { RunContext } from '../session/runContext';
import { cancel } from './stepOutcome';
import { taskEnv } from '../session/taskEnv';
import { commandLauncher } from '../session/taskProcesses';

/** Lines of a failed setup command's output kept in the task's reason (the ledger has its whole excerpt). */
const REASON_LINES = 15;

/**
 * Makes a task's worktree ready before its agent starts, when it is new or its last setup did not
 * pass (a failure a person retried, or a stop): copies the untracked files the project names
 * (`.worktreeinclude`, taskloom.worktree.copy) from the main checkout, then runs the setup commands
 * there with the gate's process machinery (process groups, timeout, watchdog, output cap, secrets
 * redacted) and the task's environment. Recorded as `worktree_setup`. False when the task cannot
 * go on: its setup failed (NEEDS_HUMAN by SETUP_FAILED, with the output) or the run was stopped.
 */
export async function setUpWorktree(ctx: RunContext, taskId: string, path: string): Promise<boolean> {
  const { session } = ctx;
  if (!session.task(taskId).needsSetup) return true;
  const { config } = session.state;
  const included = await copyIncludedFiles(session.state.repoRoot, path, config.worktree?.copy ?? []);
  const commands = config.worktree?.setup ?? [];
  // Nothing to copy and nothing to run: no event, so runs without setup read as they always did.
  if (commands.length === 0 && included.copied.length === 0 && included.notIgnored.length === 0) return true;
  const result = await runSetupCommands(ctx, taskId, path, commands);
  session.emit({
    type: 'worktree_setup',
    taskId,
    path,
    copied: included.copied.slice(0, WORKTREE_COPIED_LISTED),
    copiedCount: included.copied.length,
    notIgnored: included.notIgnored.slice(0, WORKTREE_COPIED_LISTED),
    passed: result.passed,
    ...(result.cancelled ? { cancelled: true } : {}),
    commands: result.commands,
  });
  if (result.cancelled || ctx.signal.aborted) {
    cancel(ctx, taskId, 'cancelled while the worktree was being set up');
    return false;
  }
  if (!result.passed) {
    session.transition(taskId, 'SETUP_FAILED', setupFailure(result.commands, result.stuck, config.stuckThresholdSeconds));
    return false;
  }
  return true;
}

function setupFailure(commands: GateCommandResult[], stuck: boolean, stuckSeconds: number): string {
  const failed = commands.find((c) => c.exitCode !== 0);
  if (!failed) return 'worktree setup failed';
  const how = stuck ? `showed no output for ${stuckSeconds}s and was stopped` : failed.timedOut ? 'timed out' : `exited ${failed.exitCode}`;
  const excerpt = (failed.failure?.excerpt ?? failed.output).split('\n').filter((l) => l.trim()).slice(-REASON_LINES).join('\n');
  return `worktree setup \`${failed.command}\` ${how}; fix the worktree setup commands or the project, then retry${excerpt ? `:\n${excerpt}` : ''}`;
}

/** The project's own setup (npm ci, a venv) in `path`, through the run's launcher: confined as every setup of a task is. */
export async function runSetupCommands(ctx: RunContext, taskId: string, path: string, commands: readonly string[]): Promise<GateResult> {
  if (commands.length === 0) return { passed: true, stuck: false, cancelled: false, commands: [] };
  const { config } = ctx.session.state;
  return runGate({
    commands: [...commands],
    launch: commandLauncher(ctx, 'setup', path),
    cwd: path,
    timeoutMs: config.gateTimeoutSeconds * 1000,
    idleTimeoutMs: config.stuckThresholdSeconds * 1000,
    signal: ctx.signal,
    env: { ...process.env, ...taskEnv(ctx.session.state, taskId) },
  });
}
