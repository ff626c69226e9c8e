import type { AgentRole } from './events';
import type { Plan, PlanTask } from './plan';
import type { AgentConfig, AgentKind, RunConfig } from './runConfig';

export const AGENT_ROLES: readonly AgentRole[] = ['planner', 'actor', 'critic'];

/** The agent that plays a role in one call, and the model it is asked for (unset: the agent's default). */
export interface AgentChoice {
  agent: AgentConfig;
  model?: string;
}

/**
 * Who plays `role`: the task's own actor when its plan entry names one, else the role's agent.
 * Runs from before roles existed have one agent for all three, with a model per role.
 */
export function agentFor(config: RunConfig, role: AgentRole, task?: Pick<PlanTask, 'agent' | 'model'>): AgentChoice {
  if (!config.roles) {
    const model = config.agent.kind === 'scripted' ? undefined : config.agent.models[role];
    return choice(config.agent, role === 'actor' ? task?.model ?? model : model);
  }
  const cast = config.roles[role];
  if (role === 'actor' && task?.agent && task.agent !== cast.agent) return choice(agentOfKind(config, task.agent), task.model);
  return choice(agentOfKind(config, cast.agent), (role === 'actor' ? task?.model : undefined) ?? cast.model);
}

const choice = (agent: AgentConfig, model: string | undefined): AgentChoice =>
  agent.kind !== 'scripted' && model ? { agent, model } : { agent };

function agentOfKind(config: RunConfig, kind: AgentKind): AgentConfig {
  const agent = config.agents?.[kind] ?? (config.agent.kind === kind ? config.agent : undefined);
  if (!agent) throw new Error(`the run has no ${kind} agent configured`);
  return agent;
}

/** An agent a run will call, and what it does there ("planner", "actor of docs"…), for checks and messages. */
export interface AgentUse {
  agent: AgentConfig;
  roles: string[];
}

/** Every agent the run calls for its roles and for the plan's tasks that name their own, in first-use order. */
export function agentsInUse(config: RunConfig, plan?: Plan): AgentUse[] {
  const uses = new Map<AgentKind, AgentUse>();
  const add = (agent: AgentConfig, what: string) => {
    const use = uses.get(agent.kind) ?? { agent, roles: [] };
    use.roles.push(what);
    uses.set(agent.kind, use);
  };
  for (const role of AGENT_ROLES) add(agentFor(config, role).agent, role);
  const actorKind = agentFor(config, 'actor').agent.kind;
  for (const task of plan?.tasks ?? []) {
    if (!task.agent || task.agent === actorKind || agentKindProblem(config, task.agent)) continue;
    add(agentOfKind(config, task.agent), `actor of ${task.id}`);
  }
  return [...uses.values()];
}

/** Why the run cannot call a `kind` agent (it has no configuration for it), or undefined. */
function agentKindProblem(config: RunConfig, kind: AgentKind): string | undefined {
  if (config.agents?.[kind] || config.agent.kind === kind) return undefined;
  return kind === 'command' ? 'no command line is set for the command agent' : kind === 'scripted' ? 'no scenario file is set for the scripted agent' : `no ${kind} agent is configured`;
}

/** The plan's tasks that name an actor the run cannot call, as messages naming the task. */
export function planAgentProblems(config: RunConfig, plan: Plan): string[] {
  return plan.tasks.flatMap((task) => {
    const problem = task.agent ? agentKindProblem(config, task.agent) : undefined;
    return problem ? [`task "${task.id}" names the ${task.agent} agent as its actor, but ${problem}`] : [];
  });
}
