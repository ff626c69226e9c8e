import type { RunSettings } from '../../src/protocol/runSettings';
import { writeInputs } from './cli';

/** Run settings as the editor sends them, for the scripted agent playing `scenario` (written to a file); `over` on top. */
export function scriptedSettings(scenario: object, over: Partial<RunSettings> = {}): RunSettings {
  const { 'scenario.json': scriptedScenario } = writeInputs({ 'scenario.json': scenario });
  return {
    agent: 'scripted',
    models: {},
    scriptedScenario,
    maxParallel: 2,
    gateCommands: ['true'],
    maxAttempts: 3,
    maxReviewCycles: 3,
    stuckThresholdSeconds: 60,
    gateTimeoutSeconds: 60,
    budgets: {},
    ...over,
  };
}
