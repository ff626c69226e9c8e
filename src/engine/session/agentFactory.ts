import type { AgentRunner } from '../agents/runner';
import { ClaudeRunner } from '../agents/claude/claudeRunner';
import { CodexRunner } from '../agents/codex/codexRunner';
import { CommandRunner } from '../agents/command/commandRunner';
import { ScriptedRunner } from '../agents/scripted/scriptedRunner';
import { agentFor } from '../domain/agentRoles';
import { candidateActor } from '../domain/candidates';
import type { AgentRole } from '../domain/events';
import type { AgentConfig, AgentKind } from '../domain/runConfig';
import type { RunState } from '../domain/runState';

export function createRunner(config: AgentConfig): AgentRunner {
  switch (config.kind) {
    case 'scripted':
      return new ScriptedRunner({ scenarioPath: config.scriptPath });
    case 'claude':
      // A few retries: the CLI's default (10, with backoff) reports a quota or auth failure only after minutes.
      return new ClaudeRunner({ binaryPath: config.binaryPath, maxRetries: 2 });
    case 'codex':
      return new CodexRunner({ binaryPath: config.binaryPath, configOverrides: config.configOverrides });
    case 'command':
      return new CommandRunner({ argv: config.argv });
  }
}

/** The runner a call goes to, and the model it asks for. */
export interface RunnerForCall {
  runner: AgentRunner;
  /** Whose runner it is: its process gets that agent's own credential and reaches that agent's model API. */
  agent: AgentKind;
  model?: string;
}

/**
 * A run's runners: each call goes to the agent of its role (or of its task, for an actor the
 * plan names), one runner per agent, made when first needed.
 */
export class RoleRunners {
  private readonly runners = new Map<AgentKind, AgentRunner>();

  constructor(
    private readonly session: { readonly state: Pick<RunState, 'config' | 'plan'> },
    private readonly make: (agent: AgentConfig) => AgentRunner = createRunner,
  ) {}

  /** `candidate`: an actor call for that candidate of the task, whose actor the run's candidate agents may name. */
  forCall(role: AgentRole, taskId: string | null, candidate?: number): RunnerForCall {
    const { config, plan } = this.session.state;
    const task = taskId === null ? undefined : plan?.tasks.find((t) => t.id === taskId);
    const mixed = role === 'actor' && candidate !== undefined ? candidateActor(config, candidate) : undefined;
    const choice = agentFor(config, role, mixed ?? task);
    let runner = this.runners.get(choice.agent.kind);
    if (!runner) {
      runner = this.make(choice.agent);
      this.runners.set(choice.agent.kind, runner);
    }
    return { runner, agent: choice.agent.kind, ...(choice.model ? { model: choice.model } : {}) };
  }
}
