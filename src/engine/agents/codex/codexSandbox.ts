import type { ProcessResult } from '../../process/processGroup';
import type { AccessLevel, RunnerInput } from '../runner';

/*
 * Codex's own sandbox, for a call that Taskloom's sandbox does not confine: the mode a call gets,
 * the limits of a writing actor's writes, and the check that the sandbox can run a command here.
 */

/** The sandbox of a call: only the actor may write, and only when asked to. */
export function sandboxFor(input: Pick<RunnerInput, 'role' | 'access'>): AccessLevel {
  return input.role === 'actor' && input.access === 'workspace-write' ? 'workspace-write' : 'read-only';
}

/**
 * Codex's workspace-write sandbox also lets commands write anywhere under /tmp and $TMPDIR,
 * which on most machines holds other worktrees and other people's files. The actor gets the
 * worktree plus a scratch folder of its own for temporary files (its TMPDIR) instead: as `-c`
 * arguments, to follow the user's overrides so they cannot widen it. None for a call that only reads.
 */
export function writeLimitArgs(input: Pick<RunnerInput, 'role' | 'access'>, scratchDir: string | undefined): string[] {
  if (sandboxFor(input) !== 'workspace-write' || scratchDir === undefined) return [];
  const dir = JSON.stringify(scratchDir);
  return [
    'sandbox_workspace_write.exclude_slash_tmp=true',
    'sandbox_workspace_write.exclude_tmpdir_env_var=true',
    `sandbox_workspace_write.writable_roots=[${dir}]`,
    `shell_environment_policy.set.TMPDIR=${dir}`,
  ].flatMap((c) => ['-c', c]);
}

/**
 * `codex sandbox … -- true` in the call's sandbox (its mode and write limits): whether codex's own
 * sandbox can run a command on this machine at all. Where it cannot, codex does not fail its call:
 * each command of the agent fails instead, the model gives up, and the call ends "ok" with nothing
 * done. Seen with codex 0.171 on Linux: a system `bwrap` older than 0.9 has no `--argv0`, so codex
 * re-enters its helper inside bubblewrap by the name `codex-linux-sandbox`, found on PATH only
 * through the links codex makes under CODEX_HOME, which it refuses to make when CODEX_HOME is in
 * the temporary folder; and bubblewrap fails wherever unprivileged user namespaces are turned off.
 * The user's `-c` overrides are not passed: they configure the model, and one naming a missing
 * provider would fail this check before the sandbox is tried, which the call itself reports better.
 */
export function sandboxCheckArgs(input: Pick<RunnerInput, 'role' | 'access'>, scratchDir: string | undefined): string[] {
  return ['sandbox', ...writeLimitArgs(input, scratchDir), '-c', `sandbox_mode="${sandboxFor(input)}"`, '--', 'true'];
}

/** Why an unconfined call did not start when the sandbox check failed, and what the user can do. */
export function sandboxCheckFailure(sandbox: AccessLevel, check: ProcessResult): string {
  const how = check.signal ? `was killed by ${check.signal}` : `exited with code ${check.exitCode}`;
  return (
    `codex's own sandbox (${sandbox}) cannot run commands here: \`codex sandbox -- true\` ${how}, so every command of the agent would fail. ` +
    "Let Taskloom's sandbox confine the agent, or make codex's work: its output says why; with a system bwrap older than 0.9, " +
    'CODEX_HOME must be outside the temporary folder ($TMPDIR or /tmp), and bubblewrap needs unprivileged user namespaces'
  );
}
