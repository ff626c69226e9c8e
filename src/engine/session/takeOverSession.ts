import { agentFor } from '../domain/agentRoles';
import type { RunState } from '../domain/runState';
import { interactiveSession, type InteractiveSession } from '../agents/interactiveSession';
import { launchInteractive, type InteractiveEnd } from '../sandbox/interactiveLauncher';
import type { SandboxContext } from '../sandbox/taskLauncher';
import { includedPaths } from '../workspace/worktreeInclude';
import { taskEnv } from './taskEnv';

/** The session a person takes a task over in, and where. */
export interface TakeOverSession extends InteractiveSession {
  worktree: string;
}

/**
 * The task's actor agent, interactive, resumed from the conversation its actor calls held (only by
 * the agent that holds it), in the task's worktree.
 */
export function takeOverSession(state: RunState, taskId: string, confined: boolean, env: NodeJS.ProcessEnv = process.env): TakeOverSession {
  const task = state.tasks[taskId]!;
  const planTask = state.plan.tasks.find((t) => t.id === taskId);
  const { agent, model } = agentFor(state.config, 'actor', planTask);
  const held = task.actorSessionId && (task.actorSessionAgent ?? agent.kind) === agent.kind ? task.actorSessionId : undefined;
  const worktree = task.worktreePath!;
  return { worktree, ...interactiveSession(agent, { ...(held ? { sessionId: held } : {}), ...(model ? { model } : {}), confined, cwd: worktree, env }) };
}

/**
 * Runs the person's session on this terminal, confined as the task's actor is (its worktree
 * writable, the repository's git dir read-only, no secrets, no credential but the agent's own, the
 * agent's model host only; a shell gets no agent's credential and no host), until they leave it.
 */
export async function runTakeOverSession(state: RunState, sandbox: SandboxContext, taskId: string, env: NodeJS.ProcessEnv = process.env): Promise<{ session: TakeOverSession; end: InteractiveEnd }> {
  const session = takeOverSession(state, taskId, sandbox.confinement.confined, env);
  const agent = session.program === 'shell' ? undefined : session.program;
  const hideInCheckout = sandbox.confinement.confined && !sandbox.settings.agentsSeeIncludedFiles ? await includedPaths(state.repoRoot, state.config.worktree?.copy ?? []) : [];
  const end = await launchInteractive(
    sandbox,
    { role: 'actor', checkout: session.worktree, writes: true, ...(agent ? { agent } : {}), hideInCheckout },
    { command: session.command, args: session.args, env: { ...env, ...taskEnv(state, taskId) }, needs: session.needs },
  );
  return { session, end };
}
