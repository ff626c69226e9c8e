import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DEMO_PLAN_PATH, DEMO_SCENARIO_PATH } from '../domain/demoLayout';
import type { RunSettings } from '../domain/runSettings';
import { TaskloomError } from '../domain/taskloomError';
import { Git } from '../workspace/git';
import { DEMO_FILES, DEMO_PLAN, demoScenario } from './demoProject';

/** A folder holding the demo: the sample project as a git repository, and the plan and scenario its run plays. */
export interface DemoFolder {
  dir: string;
  planFile: string;
  scenarioFile: string;
}

/** The demo folder at `dir`: where it keeps its plan and scenario (domain/demoLayout.ts). */
export function demoFolderAt(dir: string): DemoFolder {
  return { dir, planFile: join(dir, DEMO_PLAN_PATH), scenarioFile: join(dir, DEMO_SCENARIO_PATH) };
}

/** A folder the demo was made in: its plan and scenario are there to run again. */
export function isDemoFolder(dir: string): boolean {
  const { planFile, scenarioFile } = demoFolderAt(dir);
  return existsSync(planFile) && existsSync(scenarioFile);
}

/**
 * Makes the demo in `dir` (new, or empty): the sample project with its first commit, and beside it
 * the plan and the scripted agent's scenario, each step `delayMs` long so a person can watch.
 */
export async function makeDemoFolder(dir: string, delayMs: number): Promise<DemoFolder> {
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    throw new TaskloomError('bad_input', `${dir} is not empty`, 'The demo makes a new repository: give it a new or empty folder.');
  }
  mkdirSync(dir, { recursive: true });
  for (const [path, content] of Object.entries(DEMO_FILES)) writeInto(join(dir, path), content);
  const git = await new Git(dir).typed();
  await git.init(['--initial-branch=main']);
  await git.add('.');
  await git.commit('textkit: first commit', undefined, { '--no-verify': null });
  const folder = demoFolderAt(dir);
  writeInto(folder.scenarioFile, JSON.stringify(demoScenario(delayMs), null, 2));
  writeInto(folder.planFile, JSON.stringify(DEMO_PLAN, null, 2));
  return folder;
}

/**
 * How the demo runs: the scripted agent playing its scenario (no API key, no network), the
 * project's own `npm test` as the gate, two tasks at once. The CLI's demo and the editor's alike.
 */
export function demoRunSettings(folder: DemoFolder, maxParallel = 2): RunSettings {
  return {
    agent: 'scripted',
    scriptedScenario: folder.scenarioFile,
    gateCommands: ['npm test --silent'],
    maxParallel,
    stuckThresholdSeconds: 120,
    gateTimeoutSeconds: 120,
  };
}

function writeInto(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}
