import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { relativePathProblem, type ScenarioStep } from './scenario';

/** A step that cannot be carried out; the agent reports it as agent_error. */
export class StepError extends Error {
  override readonly name = 'StepError';
}

/**
 * Carries out a step's file changes in `cwd`, the way a coding agent edits its worktree.
 * Repeating a step is harmless (the last step repeats past the end of a script): a patch
 * already applied and a file already deleted are reported, not failed.
 */
export function applyStepFiles(step: ScenarioStep, cwd: string, report: (message: string) => void): string[] {
  const done: string[] = [];
  for (const [path, content] of Object.entries(step.write ?? {})) {
    const abs = insideCwd(cwd, path);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
    report(`wrote ${path}`);
    done.push(`wrote ${path}`);
  }
  for (const { path, find, replace } of step.patch ?? []) {
    const abs = insideCwd(cwd, path);
    if (!existsSync(abs)) throw new StepError(`patch: ${path} does not exist`);
    const text = readFileSync(abs, 'utf8');
    if (!text.includes(find)) {
      if (replace !== '' && text.includes(replace)) {
        report(`patch of ${path} already applied`);
        continue;
      }
      throw new StepError(`patch: the text to find is not in ${path}: ${JSON.stringify(find)}`);
    }
    writeFileSync(abs, text.replace(find, () => replace));
    report(`patched ${path}`);
    done.push(`patched ${path}`);
  }
  for (const path of step.delete ?? []) {
    const abs = insideCwd(cwd, path);
    if (!existsSync(abs)) {
      report(`${path} already absent`);
      continue;
    }
    rmSync(abs, { recursive: true });
    report(`deleted ${path}`);
    done.push(`deleted ${path}`);
  }
  return done;
}

/** Checked again here, not only in the schema: this is the line that must never be crossed. */
function insideCwd(cwd: string, path: string): string {
  const problem = relativePathProblem(path);
  if (problem) throw new StepError(`path "${path}" ${problem}`);
  const abs = resolve(cwd, path);
  const rel = relative(cwd, abs);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) throw new StepError(`path "${path}" leaves the working directory`);
  return abs;
}
