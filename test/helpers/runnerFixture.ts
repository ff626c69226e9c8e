import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after } from 'node:test';
import { recogniseRunner } from '../../src/engine/gate/testRunners';
import type { RecognisedRunner, RunnerCommand, TestReport, TestSelection } from '../../src/engine/gate/testRunners';
import { makeTempRepo, type TempRepo } from './tempRepo';

/** This project's own node_modules: jest, vitest and mocha are its dev dependencies. */
const PROJECT_NODE_MODULES = join(__dirname, '..', '..', 'node_modules');

export interface RunnerRepo extends TempRepo {
  /** Writes files into the checkout (not committed). */
  write(files: Record<string, string>): void;
}

/**
 * A real git repository holding a small project with its own tests. Its `node_modules` is a
 * symlink to this project's, so the fixture reaches the real jest, vitest and mocha without an
 * install (ignored by git, as a real one would be).
 */
export function makeRunnerRepo(files: Record<string, string>): RunnerRepo {
  const repo = makeTempRepo({ files: { '.gitignore': 'node_modules\n', ...files } });
  symlinkSync(PROJECT_NODE_MODULES, join(repo.dir, 'node_modules'));
  return { ...repo, write: (more) => writeFiles(repo.dir, more) };
}

/** The same repository checked out at another path, as a baseline worktree or another clone would be. */
export function cloneElsewhere(repo: TempRepo): TempRepo {
  const parent = realpathSync(mkdtempSync(join(tmpdir(), 'taskloom-clone-')));
  const dir = join(parent, 'elsewhere');
  repo.git(['clone', '-q', repo.dir, dir]);
  symlinkSync(PROJECT_NODE_MODULES, join(dir, 'node_modules'));
  return { dir, git: repo.git, cleanup: () => rmSync(parent, { recursive: true, force: true }) };
}

/**
 * Fresh projects from `make` for one suite's tests, all removed after it: `project()` for a test
 * of its own, `projectElsewhere()` for one checked out at another path. Call inside a `describe`.
 */
export function suiteProjects(make: () => RunnerRepo): { project(): RunnerRepo; projectElsewhere(): TempRepo } {
  const made: TempRepo[] = [];
  after(() => made.forEach((repo) => repo.cleanup()));
  const kept = <Repo extends TempRepo>(repo: Repo): Repo => {
    made.push(repo);
    return repo;
  };
  return { project: () => kept(make()), projectElsewhere: () => kept(cloneElsewhere(kept(make()))) };
}

function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

export interface ShellRun {
  exitCode: number | null;
  output: string;
}

/**
 * A command run as the gate runs it: `sh -c` in the checkout, with the runner's env laid over
 * this environment. Node's test runner marks its children (NODE_TEST_CONTEXT); the gate takes
 * that off (runGate.ts), and so does this, or the fixture's own `node --test` would report to us.
 */
export function runShell(command: string | RunnerCommand, cwd: string): ShellRun {
  const { command: line, env } = typeof command === 'string' ? { command, env: {} } : command;
  const { NODE_TEST_CONTEXT: _ignored, ...outer } = process.env;
  const result = spawnSync('sh', ['-c', line], { cwd, env: { ...outer, ...env }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { exitCode: result.status, output: `${result.stdout}${result.stderr}` };
}

/** Recognises `command` in `cwd`, or fails the test saying it was not. */
export function recognised(command: string, cwd: string): RecognisedRunner {
  const runner = recogniseRunner(command, cwd);
  if (!runner) throw new Error(`\`${command}\` was not recognised in ${cwd}`);
  return runner;
}

/** A fresh report folder outside the checkout. */
export function reportFolder(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), 'taskloom-report-')));
}

export interface SelectedRun extends ShellRun {
  command: RunnerCommand;
  report: TestReport | undefined;
}

/** Runs `selection` of `runner` in `cwd` and reads what it reported. */
export function runSelection(runner: RecognisedRunner, selection: TestSelection, cwd: string): SelectedRun {
  const reportDir = reportFolder();
  try {
    const command = runner.commandFor(selection, reportDir);
    const run = runShell(command, cwd);
    return { ...run, command, report: runner.readReport(reportDir, run.output, cwd) };
  } finally {
    rmSync(reportDir, { recursive: true, force: true });
  }
}

/** Runs the whole of `command`, recognised in `cwd`, as the gate does, and reads what it reported. */
export const wholeRun = (command: string, cwd: string): SelectedRun => runSelection(recognised(command, cwd), { kind: 'all' }, cwd);

/** The ids of the failed tests of a report, sorted. */
export const failedIds = (report: TestReport | undefined): string[] => (report?.failed.map((test) => test.id) ?? []).sort();
