import type { RunConfig } from '../domain/runConfig';
import { describeAffectedSupport } from '../gate/affected/describeAffectedSupport';
import { recogniseRunner } from '../gate/testRunners';

/**
 * How the gate will judge in this repository, one line per command and one for the run: which
 * runner Taskloom recognised (so failures are compared test by test with the base) or that it
 * compares by command, what an affected-only task gate can narrow, and what is switched off.
 */
export async function describeGatePlan(config: RunConfig, repoRoot: string): Promise<string[]> {
  const gate = config.gate;
  const lines: string[] = [];
  for (const command of config.gateCommands) {
    const runner = recogniseRunner(command, repoRoot);
    if (!runner) {
      lines.push(`\`${command}\`: no test runner recognised: judged by its exit code; if it fails on the base, the run asks whether it is advisory or required (taskloom.gate.onBaseFailure answers ahead)`);
      continue;
    }
    const files = gate?.affectedOnly && runner.testFiles ? await runner.testFiles(repoRoot) : undefined;
    const narrowing = !gate?.affectedOnly
      ? 'every test at every gate (taskloom.gate.affectedOnly is off)'
      : runner.selections.has('related')
        ? `a task gate runs ${runner.runner}'s own related tests of the change`
        : await describeAffectedSupport(repoRoot, files);
    lines.push(`\`${command}\`: ${runner.runner}, compared test by test with the base; ${narrowing}`);
  }
  if (lines.length === 0) return lines;
  const off = [gate?.baseline ? '' : 'no baseline (every failure is the task\'s)', gate?.flakyReruns ? '' : 'no flaky reruns'].filter(Boolean);
  lines.push(
    `${gate?.baseline ? 'the base is gated once per run (beside the first actors), and cached by tree' : 'the base is not gated'}; ` +
      `${gate?.flakyReruns ? `new failures are rerun alone up to ${gate.flakyReruns}× per gate` : 'failures are never rerun'}; the integration gate runs every test` +
      (off.length ? ` (${off.join(', ')})` : ''),
  );
  return lines;
}
