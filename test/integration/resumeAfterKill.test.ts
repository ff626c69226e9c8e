import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEMO_FILES, DEMO_PLAN, demoScenario } from '../../src/cli/demo/demoProject';
import type { RunEvent } from '../../src/engine/domain/events';
import type { TraceReport } from '../../src/engine/report/traceReport';
import { runCli, startCli, writeInputs } from '../helpers/cli';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';
import { otherWorktreeNames, readEvents } from '../faults/faultHelpers';

/**
 * Kills the CLI with SIGKILL at different points of a real run, resumes, and checks the end
 * state is the one an uninterrupted run reaches: same GREEN set, same integrated tree, one
 * merge commit per task, no task worktree left behind.
 */
const inputs = writeInputs({ 'plan.json': DEMO_PLAN, 'scenario.json': demoScenario(150) });
const runArgs = (dir: string) => [
  'run', '--cwd', dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!,
  '--yes', '--parallel', '2', '--gate', 'node --test',
];
const repos: TempRepo[] = [];
after(() => repos.forEach((r) => r.cleanup()));

interface EndState {
  states: Record<string, string>;
  tree: string;
  merges: number;
  worktrees: string[];
}

function endState(r: TempRepo): EndState {
  const t = JSON.parse(runCli(['trace', '--json', '--cwd', r.dir]).stdout) as TraceReport;
  const branch = t.integration.branch!;
  const worktrees = otherWorktreeNames(r);
  return {
    states: Object.fromEntries(t.tasks.map((x) => [x.id, x.state])),
    tree: r.git(['rev-parse', `${branch}^{tree}`]),
    merges: Number(r.git(['rev-list', '--merges', '--count', '--first-parent', branch])),
    worktrees,
  };
}

const KILL_POINTS: Array<{ name: string; when: (events: RunEvent[]) => boolean }> = [
  { name: 'right after the run was created', when: (e) => e.some((x) => x.type === 'plan_approved') },
  { name: 'after the first actor commit, before its gate', when: (e) => e.some((x) => x.type === 'work_committed') },
  { name: 'after a failed gate, during the fix attempt', when: (e) => e.some((x) => x.type === 'gate_result' && !x.passed) },
  { name: 'while the critic asked for changes', when: (e) => e.some((x) => x.type === 'critic_verdict' && x.verdict.decision === 'changes_required') },
  { name: 'after the third task went green', when: (e) => e.filter((x) => x.type === 'task_transition' && x.to === 'GREEN').length >= 3 },
  { name: 'in the middle of the integration merges', when: (e) => e.some((x) => x.type === 'merge_done') },
];

describe('resume after SIGKILL', () => {
  let baseline: EndState;

  before(() => {
    const r = makeTempRepo({ files: DEMO_FILES });
    repos.push(r);
    const result = runCli(runArgs(r.dir));
    assert.equal(result.code, 0, result.stdout + result.stderr);
    baseline = endState(r);
    assert.equal(baseline.merges, DEMO_PLAN.tasks.length);
  });

  for (const point of KILL_POINTS) {
    it(`reaches the uninterrupted end state when killed ${point.name}`, async () => {
      const r = makeTempRepo({ files: DEMO_FILES });
      repos.push(r);
      const { child, done } = startCli(runArgs(r.dir));
      let killed = false;
      for (let waited = 0; waited < 60_000; waited += 20) {
        if (point.when(readEvents(r.dir))) {
          process.kill(-child.pid!, 'SIGKILL');
          killed = true;
          break;
        }
        if (child.exitCode !== null) break;
        await sleep(20);
      }
      const first = await done;
      assert.ok(killed, `the kill point was reached before the run ended (exit ${first.code})\n${first.stdout}`);

      const resumed = runCli(['resume', '--cwd', r.dir]);
      assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
      assert.deepEqual(endState(r), baseline);
      const merges = readEvents(r.dir).filter((e) => e.type === 'merge_done' && !e.alreadyMerged).map((e) => (e as { taskId: string }).taskId);
      assert.equal(new Set(merges).size, merges.length, 'no task merged twice');
    });
  }
});
