import type { AccessLevel, RunnerInput } from '../runner';

/*
 * Codex's own sandbox, for a call that Taskloom's sandbox does not confine: the mode a call gets
 * and the limits of a writing actor's writes.
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
