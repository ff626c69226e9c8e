import { isAbsolute } from 'node:path';
import type { AgentConfig } from '../domain/runConfig';
import type { ProgramNeeds } from '../process/launcher';
import { WRITE_TOOLS } from './claude/claudeArgs';
import { claudeNeeds } from './claude/claudeRunner';
import { codexNeeds } from './codex/codexRunner';

/** What a person's session in a task's worktree runs: the actor's own agent, interactive, resumed where it has a session; else a shell. */
export interface InteractiveSession {
  /** `claude`, `codex`, or `shell` for an agent that has no interactive session of its own (a command, the scripted agent). */
  program: 'claude' | 'codex' | 'shell';
  command: string;
  args: string[];
  needs: ProgramNeeds;
  /** The agent's session it continues, when it has one. */
  resumes?: string;
}

/**
 * The session a person takes a task over in: `claude --resume <id>` (Claude Code), `codex resume
 * <id>` (Codex), or the user's shell. The agent is held as an actor's call is: Claude Code's
 * repository settings and MCP servers stay out (--restricted, --strict-mcp-config), with its
 * writing tools; Codex's own sandbox stays off inside Taskloom's (it cannot start nested), and
 * only a session Taskloom does not confine keeps it, limited to the worktree. The person answers
 * the agent's questions themselves, so nothing is pre-approved.
 */
export function interactiveSession(agent: AgentConfig, options: { sessionId?: string; model?: string; confined: boolean; cwd: string; env: NodeJS.ProcessEnv }): InteractiveSession {
  const { sessionId, model, env } = options;
  const resumes = sessionId ? { resumes: sessionId } : {};
  switch (agent.kind) {
    case 'claude':
      return {
        program: 'claude',
        command: agent.binaryPath,
        args: [...(sessionId ? ['--resume', sessionId] : []), ...(model ? ['--model', model] : []), '--restricted', '--strict-mcp-config', '--tools', WRITE_TOOLS.join(',')],
        needs: claudeNeeds(agent.binaryPath, env),
        ...resumes,
      };
    case 'codex': {
      const sandbox = options.confined ? ['--dangerously-bypass-approvals-and-sandbox'] : ['--sandbox', 'workspace-write'];
      const common = [...(model ? ['-m', model] : []), ...agent.configOverrides.flatMap((c) => ['-c', c]), ...sandbox];
      return {
        program: 'codex',
        command: agent.binaryPath,
        args: sessionId ? ['resume', ...common, sessionId] : common,
        needs: codexNeeds(agent.binaryPath, env, agent.configOverrides, options.cwd),
        ...resumes,
      };
    }
    default:
      return { program: 'shell', command: env.SHELL && isAbsolute(env.SHELL) ? env.SHELL : '/bin/sh', args: [], needs: {} };
  }
}
