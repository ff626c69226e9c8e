import type { AgentRole } from '../domain/events';
import type { AgentKind } from '../domain/runConfig';
import type { ProcessLauncher } from '../process/launcher';
import { taskLauncher } from '../sandbox/taskLauncher';
import { Git } from '../workspace/git';
import { splitNul } from '../workspace/gitQueries';
import { includedPaths } from '../workspace/worktreeInclude';
import { samePath } from '../workspace/worktreeOps';
import type { RunContext } from './runContext';

/**
 * The launcher of one agent call. Only an actor asked to write may change its checkout. An agent
 * does not see what `.worktreeinclude` copied in (`.env`: setup's and the gate's, not the model's)
 * unless the run says so; a planner, which reads the main checkout itself, sees only its tracked files.
 */
export async function agentLauncher(
  ctx: Pick<RunContext, 'session' | 'sandbox'>,
  call: { role: AgentRole; cwd: string; writes: boolean },
  agent: AgentKind,
): Promise<ProcessLauncher> {
  const { repoRoot, config } = ctx.session.state;
  let hideInCheckout: string[] = [];
  if (ctx.sandbox.confinement.confined) {
    if (samePath(call.cwd, repoRoot)) hideInCheckout = await untrackedPaths(repoRoot);
    else if (!ctx.sandbox.settings.agentsSeeIncludedFiles) hideInCheckout = await includedPaths(repoRoot, config.worktree?.copy ?? []);
  }
  return taskLauncher(ctx.sandbox, { role: call.role, checkout: call.cwd, writes: call.writes, agent, hideInCheckout });
}

/** The launcher of a setup or gate command in `cwd`: it sees the whole checkout, `.env` included, and no agent's credential. */
export const commandLauncher = (ctx: Pick<RunContext, 'sandbox'>, role: 'setup' | 'gate', cwd: string): ProcessLauncher =>
  taskLauncher(ctx.sandbox, { role, checkout: cwd, writes: true });

/** Every untracked path of a checkout, ignored or not (a folder once, as `name/`): what is not the repository's. */
async function untrackedPaths(checkout: string): Promise<string[]> {
  const { stdout } = await new Git(checkout).run(['ls-files', '-z', '--others', '--directory']);
  return splitNul(stdout)
    .filter(Boolean)
    .map((p) => p.replace(/\/$/, ''));
}
