import type { AgentConfig } from '../domain/runConfig';
import { resolveExecutable } from '../process/findOnPath';
import { EDITOR_SETTING_LABELS, SettingsError, type SettingName } from './runConfigFromSettings';

const INSTALL: Record<'claude' | 'codex', string> = {
  claude: 'Install Claude Code (npm i -g @anthropic-ai/claude-code)',
  codex: 'Install the Codex CLI (npm i -g @openai/codex)',
};

/**
 * Fails before a run starts when its agent's program cannot be found, rather than on the
 * first call of every task. The scripted agent ships with Taskloom.
 */
export function assertAgentInstalled(agent: AgentConfig, labels: Record<SettingName, string> = EDITOR_SETTING_LABELS): void {
  if (agent.kind === 'scripted') return;
  const binary = agent.kind === 'command' ? agent.argv[0]! : agent.binaryPath;
  if (resolveExecutable(binary)) return;
  const where = binary.includes('/') ? `${binary} is not an executable file` : `\`${binary}\` is not on PATH`;
  switch (agent.kind) {
    case 'claude':
    case 'codex': {
      const setting = agent.kind === 'claude' ? labels.claudePath : labels.codexPath;
      throw new SettingsError(where, `${INSTALL[agent.kind]}, or set ${setting} to where it is.`);
    }
    case 'command':
      throw new SettingsError(`The command agent's program: ${where}`, `Install it, or change ${labels.commandArgv}.`);
  }
}
