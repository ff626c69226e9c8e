import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentRunner, RunnerInput, RunnerResult } from '../src/engine/agents/runner';
import { ZERO_USAGE } from '../src/engine/domain/usage';

/**
 * The in-process agent of the whole-run benches: the actor writes one small file of its own (no
 * conflicts), the critic answers green at once, so a run costs what the engine and git cost.
 */
export const instantRunner: AgentRunner = {
  name: 'bench-instant',
  async run(input: RunnerInput): Promise<RunnerResult> {
    if (input.role === 'actor') await writeFile(join(input.cwd, `out-${input.taskId}.txt`), `work of ${input.taskId}\n`);
    const text = input.role === 'critic' ? JSON.stringify({ decision: 'green', summary: 'fine', findings: [] }) : 'done';
    return { status: 'ok', text, usage: { ...ZERO_USAGE }, model: 'bench', durationMs: 0 };
  },
};
