import type { AgentRunner } from '../agents/runner';
import { ClaudeRunner } from '../agents/claude/claudeRunner';
import { CodexRunner } from '../agents/codex/codexRunner';
import { CommandRunner } from '../agents/command/commandRunner';
import { ScriptedRunner } from '../agents/scripted/scriptedRunner';
import type { AgentConfig } from '../domain/runConfig';

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

/** The model configured for a role, if any (the scripted agent has none). */
export function modelFor(config: AgentConfig, role: 'planner' | 'actor' | 'critic'): string | undefined {
  return config.kind === 'scripted' ? undefined : config.models[role];
}
