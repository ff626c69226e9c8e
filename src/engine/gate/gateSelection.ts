import { extname } from 'node:path';
import type { GateSelection } from '../domain/gateTests';
import { affectedPackages } from './affected/affectedPackages';
import { affectedTestFiles } from './affected/affectedTestFiles';
import { commandForPackages } from './affected/commandForPackages';
import { readWorkspaceLayout } from './affected/workspaceLayout';
import type { RecognisedRunner, TestSelection } from './testRunners';
import { counted } from '../text/counted';

/** How one command of a task's gate runs, given what the task changed. */
export type ChosenSelection =
  | { run: 'all'; selection?: GateSelection }
  /** No test can be affected: the command does not run. */
  | { run: 'none'; selection: GateSelection }
  | { run: 'runner'; tests: TestSelection; selection: GateSelection }
  /** The workspace tool's command narrowed to the affected packages. */
  | { run: 'command'; command: string; selection: GateSelection };

/** The source files each runner's own "related tests" can place; anything else (a config, a lockfile) runs every test. */
const RUNNER_SOURCES: Record<string, readonly string[]> = {
  jest: ['.js', '.jsx', '.ts', '.tsx', '.mjs', '.cjs', '.mts', '.cts'],
  vitest: ['.js', '.jsx', '.ts', '.tsx', '.mjs', '.cjs', '.mts', '.cts', '.vue', '.svelte'],
  'go test': ['.go'],
};

/** `jest.config.js`, `.mocharc.cjs`, `go.mod`: files that change how tests run, whatever their extension. */
const CONFIG_FILE = /(^|\/)([^/]+\.config\.[^/]+|\.[^/]*rc(\.[^/]+)?|go\.(mod|sum|work))$/;

/**
 * Which of a command's tests a task's gate runs for a change to `changed` (repo-relative): the
 * runner's own means where it has one, the import graph for node:test and mocha, the workspace
 * packages for a workspace tool's command. Whatever cannot be placed runs everything: the full
 * suite is always the safe answer, and the integration gate runs it regardless.
 */
export async function chooseSelection(command: string, runner: RecognisedRunner | undefined, cwd: string, changed: readonly string[]): Promise<ChosenSelection> {
  if (changed.length === 0) return { run: 'all' };
  if (runner?.selections.has('related')) {
    const sources = RUNNER_SOURCES[runner.runner] ?? [];
    const unplaced = changed.find((file) => !sources.includes(extname(file)) || CONFIG_FILE.test(file));
    if (unplaced) return { run: 'all', selection: { kind: 'all', why: `${unplaced} is not a source file ${runner.runner} can relate to its tests` } };
    return { run: 'runner', tests: { kind: 'related', changed: [...changed] }, selection: { kind: 'affected', how: 'runner', why: `${runner.runner}'s own related tests of ${changedWords(changed)}` } };
  }
  if (runner?.testFiles && runner.selections.has('files')) {
    const testFiles = await runner.testFiles(cwd);
    if (!testFiles) return { run: 'all', selection: { kind: 'all', why: `${runner.runner} did not say which files it runs` } };
    const affected = await affectedTestFiles(cwd, testFiles, [...changed]);
    if (affected.kind === 'full') return { run: 'all', selection: { kind: 'all', why: affected.why } };
    if (affected.kind === 'files') {
      const selection: GateSelection = { kind: 'affected', how: 'import graph', why: affected.why };
      if (affected.testFiles.length === 0) return { run: 'none', selection: { ...selection, none: true } };
      return { run: 'runner', tests: { kind: 'files', files: affected.testFiles }, selection };
    }
  }
  if (runner) return { run: 'all' };
  const layout = readWorkspaceLayout(cwd);
  if (!layout) return { run: 'all' };
  const affected = affectedPackages(layout, [...changed]);
  if (affected.kind !== 'packages') return { run: 'all', selection: { kind: 'all', why: affected.why } };
  const narrowed = commandForPackages(layout, command, affected.packages);
  if (!narrowed) return { run: 'all' };
  return { run: 'command', command: narrowed, selection: { kind: 'affected', how: 'workspace packages', why: affected.why } };
}

const changedWords = (changed: readonly string[]): string => (changed.length === 1 ? changed[0]! : `${changed[0]} and ${counted(changed.length - 1, 'more file')}`);
