import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { EXIT } from '../../src/engine/domain/taskloomError';
import { runCli, startCli, writeInputs } from '../helpers/cli';
import { makeTempRepo } from '../helpers/tempRepo';
import type { FaultRow } from './faultTable';

/**
 * Two engines on one workspace: while a CLI drives a run, a second `taskloom run`, a `resume`
 * and a `retry` are refused with who holds the lock (exit 2, nothing created), and the
 * read-only commands (`runs`, `trace`) work and see the run moving. The first run's actor
 * takes two minutes, so the checks happen while it drives however slow the machine is; it is
 * cancelled (Ctrl-C) afterwards. The editor's live,
 * read-only following of such a run is tested with the engine server
 * (test/integration/engineServer.test.ts).
 */
export async function runConcurrencyFaults(options: { log?: (line: string) => void } = {}): Promise<FaultRow[]> {
  const log = options.log ?? (() => {});
  const repo = makeTempRepo({ files: { 'README.md': '# two engines\n' } });
  const inputs = writeInputs({
    'plan.json': {
      goal: 'two engines',
      tasks: [{ id: 'slow', title: 'Slow task', description: 'Takes a while.', acceptance: ['slow.txt'], dependsOn: [], files: ['slow.txt'] }],
    },
    'scenario.json': {
      tasks: { slow: { actor: [{ write: { 'slow.txt': 'slow\n' }, delayMs: 120_000 }], critic: [{ verdict: { decision: 'green', summary: 'ok', findings: [] } }] } },
    },
  });
  const runArgs = ['--cwd', repo.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', '--gate', 'true'];
  const refused: FaultRow = { group: 'concurrency', kind: 'second engine on a driven workspace', injected: 0, handled: 0, outcome: '', problems: [] };
  const watched: FaultRow = { group: 'concurrency', kind: 'read-only commands while driven', injected: 0, handled: 0, outcome: '', problems: [] };
  try {
    const first = startCli(['run', ...runArgs]);
    const runsDir = join(repo.dir, '.taskloom', 'runs');
    const runCount = () => (existsSync(runsDir) ? readdirSync(runsDir).length : 0);
    for (let waited = 0; !existsSync(join(repo.dir, '.taskloom', 'lock')) || runCount() === 0; waited += 50) {
      if (waited > 30_000) throw new Error('the first CLI never took the lock');
      await sleep(50);
    }
    for (const [name, args] of [
      ['run', ['run', ...runArgs]],
      ['resume', ['resume', '--cwd', repo.dir, '--yes']],
      ['retry', ['retry', 'slow', '--cwd', repo.dir]],
    ] as const) {
      refused.injected += 1;
      const second = runCli([...args]);
      const problems: string[] = [];
      if (second.code !== EXIT.busy) problems.push(`${name}: exit ${second.code}, not ${EXIT.busy}`);
      if (!/Another Taskloom process \(pid \d+.*"taskloom run".*is driving this workspace/s.test(second.stderr)) {
        problems.push(`${name}: no clear message: ${second.stderr.trim().slice(0, 300)}`);
      }
      if (runCount() !== 1) problems.push(`${name}: created a run`);
      if (problems.length) refused.problems.push(...problems);
      else refused.handled += 1;
      log(`concurrency: second ${name} ${problems.length ? `FAILED ${problems.join('; ')}` : 'refused'}`);
    }
    for (const args of [['runs', '--cwd', repo.dir, '--json'], ['trace', '--cwd', repo.dir, '--json']]) {
      watched.injected += 1;
      const read = runCli(args);
      if (read.code === 0 && read.stdout.includes('"two engines"')) watched.handled += 1;
      else watched.problems.push(`${args[0]}: exit ${read.code}: ${read.stderr.trim().slice(0, 300)}`);
    }
    if (!existsSync(join(repo.dir, '.taskloom', 'lock'))) watched.problems.push('the first run ended before the checks: the test proves nothing');
    // The first run's actor takes two minutes: Ctrl-C it, as its user would.
    process.kill(-first.child.pid!, 'SIGINT');
    const done = await first.done;
    if (done.code !== 1 || !/cancelled/.test(done.stdout + done.stderr)) {
      refused.problems.push(`the first CLI did not end as cancelled: exit ${done.code}: ${done.stderr.slice(-300)}`);
    }
    refused.outcome = 'exit 2, names the lock holder, nothing created; the first run goes on undisturbed';
    watched.outcome = '`runs` and `trace` read the driven run (exit 0)';
    return [refused, watched];
  } finally {
    repo.cleanup();
  }
}
