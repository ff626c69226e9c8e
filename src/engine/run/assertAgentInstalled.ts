import { agentsInUse, planAgentProblems } from '../domain/agentRoles';
import type { Plan } from '../domain/plan';
import type { AgentConfig, RunConfig } from '../domain/runConfig';
import { resolveExecutable } from '../process/findOnPath';
import type { SettingName } from '../domain/runSettings';
import { SettingsError } from './runConfigFromSettings';

const INSTALL: Record<'claude' | 'codex', string> = {
  claude: 'Install Claude Code (npm i -g @anthropic-ai/claude-code)',
  codex: 'Install the Codex CLI (npm i -g @openai/codex)',
};

/**
 * Fails before a run starts (or goes on) when an agent it calls cannot be found, or a plan task
 * names an actor the run has no configuration for, rather than on the first call of every task.
 * The scripted agent ships with Taskloom.
 */
export function assertAgentsInstalled(config: RunConfig, plan: Plan | undefined, labels: Record<SettingName, string>): void {
  const problems = plan ? planAgentProblems(config, plan) : [];
  if (problems.length) throw new SettingsError(`The plan names an agent the run cannot call: ${problems.join('; ')}`, 'Configure that agent, or change the task\'s "agent".');
  for (const use of agentsInUse(config, plan)) assertAgentInstalled(use.agent, use.roles, labels);
}

function assertAgentInstalled(agent: AgentConfig, roles: string[], labels: Record<SettingName, string>): void {
  if (agent.kind === 'scripted') return;
  const binary = agent.kind === 'command' ? agent.argv[0]! : agent.binaryPath;
  if (resolveExecutable(binary)) return;
  const where = binary.includes('/') ? `${binary} is not an executable file` : `\`${binary}\` is not on PATH`;
  const uses = `the ${agent.kind} agent (${roles.join(', ')})`;
  switch (agent.kind) {
    case 'claude':
    case 'codex': {
      const setting = agent.kind === 'claude' ? 'claudePath' : 'codexPath';
      throw new SettingsError(`${uses}: ${where}`, `${INSTALL[agent.kind]}, or set ${labels[setting]} to where it is.`, { kind: 'needs_environment', setting });
    }
    case 'command':
      throw new SettingsError(`${uses}: ${where}`, `Install it, or change ${labels.commandArgv}.`, { kind: 'needs_environment', setting: 'commandArgv' });
  }
}
