import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GateJudging } from '../src/engine/gate/judgedGate';
import { runJudgedGate } from '../src/engine/gate/judgedGate';
import { launchUnconfined } from '../src/engine/process/launcher';
import type { TempRepo } from '../test/helpers/tempRepo';
import type { PlantedTask } from './gateLibrary';

/** The generated library's gate, as its package.json runs it (`node --test`, recognised through the script). */
export const GATE_COMMAND = 'npm test';

export interface TimedGate {
  ms: number;
  passed: boolean;
  /** Tests the runner ran (0 when no test could be affected and the command did not run). */
  ran: number;
  /** Test files whose tests newly failed (after the flaky rerun). */
  newFailures: string[];
  /** Why the differential gate ran what it ran; absent for the full suite. */
  why?: string;
  /** The judged command as recorded, for the baseline. */
  command: Awaited<ReturnType<typeof runJudgedGate>>['commands'][number];
}

/** One gate through `runJudgedGate` with the unconfined launcher, timed from the call to its result (selection and reruns included). */
export async function timedGate(cwd: string, judging: GateJudging): Promise<TimedGate> {
  const started = performance.now();
  const result = await runJudgedGate({
    commands: [GATE_COMMAND],
    launch: launchUnconfined,
    cwd,
    timeoutMs: 900_000,
    idleTimeoutMs: 300_000,
    signal: new AbortController().signal,
    judging,
  });
  const ms = performance.now() - started;
  const command = result.commands[0];
  if (!command) throw new Error(`the gate in ${cwd} ran no command`);
  const tests = command.tests;
  const skipped = command.selection?.kind === 'affected' && command.selection.none === true;
  if (!tests && !skipped) throw new Error(`the gate in ${cwd} was judged by its exit code alone (no report): ${command.output.slice(-2000)}`);
  return {
    ms,
    passed: result.passed,
    ran: tests ? tests.passed + tests.failed.length + tests.skipped : 0,
    newFailures: [...new Set((tests?.newFailures ?? []).map((t) => t.file ?? t.id))].sort(),
    ...(command.selection?.kind === 'affected' || command.selection?.why ? { why: command.selection.why } : {}),
    command,
  };
}

/** A task as an actor would leave it: a branch off main in a worktree of its own, its change committed. What it changed, as git says. */
export function checkOutTask(repo: TempRepo, root: string, task: PlantedTask): { dir: string; changed: string[] } {
  const dir = join(root, task.id);
  repo.git(['worktree', 'add', '-q', '-b', `task/${task.id}`, dir, 'main']);
  for (const [path, text] of Object.entries(task.writes)) writeFileSync(join(dir, path), text);
  const what = [task.broken.name, task.refactored?.name].filter(Boolean).join(' and ');
  repo.git(['-C', dir, 'commit', '-q', '-am', `${task.id}: rework ${what}`]);
  return { dir, changed: repo.git(['-C', dir, 'diff', '--name-only', 'main', 'HEAD']).split('\n').filter(Boolean) };
}
