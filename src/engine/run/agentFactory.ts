import type { AgentRunner } from '../agents/runner';
import { ScriptedRunner } from '../agents/scripted/scriptedRunner';
import type { AgentConfig } from '../domain/runConfig';

export function createRunner(config: AgentConfig): AgentRunner {
  switch (config.kind) {
    case 'scripted':
      return new ScriptedRunner({ scenarioPath: config.scriptPath });
  }
}
