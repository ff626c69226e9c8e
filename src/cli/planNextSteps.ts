import { mkdirSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { RunState } from '../engine/domain/runState';
import { runPaths, taskloomPaths } from '../engine/store/paths';
import { shellQuote } from '../engine/text/shellQuote';

/**
 * Keeps a plan for the user to fix beside the run's log (`.taskloom/runs/<run>/plan-to-fix.json`,
 * which git ignores): the CLI's way back in after planning left no plan that can start.
 */
export function savePlanToFix(state: Pick<RunState, 'repoRoot' | 'runId'>, text: string): string {
  const { dir } = runPaths(taskloomPaths(state.repoRoot).runsDir, state.runId);
  mkdirSync(dir, { recursive: true });
  const file = `${dir}/plan-to-fix.json`;
  writeFileSync(file, text);
  return file;
}

/**
 * The commands that start again: plan the same goal again, or start from the saved plan once it is
 * fixed. From the repository's top folder they are short; from anywhere else they name it.
 */
export function planNextSteps(state: Pick<RunState, 'repoRoot' | 'goal'>, savedPlan?: string, cwd = process.cwd()): string[] {
  const atTop = relative(cwd, state.repoRoot) === '';
  const at = atTop ? '' : ` --cwd ${shellQuote(state.repoRoot)}`;
  const lines = ['Next:', `  plan again:      taskloom run --goal ${shellQuote(state.goal)}${at}`];
  if (savedPlan) {
    const shown = atTop ? relative(cwd, savedPlan) : savedPlan;
    lines.push(`  fix the plan in: ${shown}`, `  then start it:   taskloom run --plan ${shellQuote(shown)}${at}`);
  }
  return lines;
}
