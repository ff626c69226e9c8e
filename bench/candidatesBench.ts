import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunEvent } from '../src/engine/domain/events';
import type { RunStats } from '../src/engine/report/runStats';
import { mulberry32 } from '../src/engine/schedule/simulateSchedule';
import { makeTempRepo } from '../test/helpers/tempRepo';
import type { Section } from './report';

const TASKS = 40;
const PASS_PROBABILITY = 0.5;
const COST_PER_CALL = 0.01;
// Seeded, so every machine draws the same, and N = 1 and N = 3 meet the same candidates.
const SEED = 25;
const CLI = join(__dirname, '..', 'dist', 'cli.js');
// The gate: every task file in the checkout says "ok".
const CHECK = "const fs = require('node:fs'); for (const f of fs.readdirSync('.').filter((n) => n.endsWith('.task'))) if (fs.readFileSync(f, 'utf8').trim() !== 'ok') process.exit(1);\n";

interface Measured {
  firstPass: number;
  costUsd: number;
  calls: number;
  seconds: number;
  /** What `taskloom stats --json` says of the run: the bench's own counts, told by the product. */
  stats: RunStats;
}

/**
 * Section 14. Candidates: the same 40 independent tasks run once with one candidate each and once
 * with three, through the built CLI with the scripted agent, real git worktrees and a real gate.
 * Each candidate passes its gate with probability 0.5, drawn once per task and candidate (the N = 1
 * run meets each task's candidate 1); a retry always passes. A task is green without a retry when
 * its log holds no RETRY_BUILD; the cost is every agent call's (actors, comparisons, critics, retries).
 */
export function benchCandidates(): Section {
  const random = mulberry32(SEED);
  const passes = Array.from({ length: TASKS }, () => [random() < PASS_PROBABILITY, random() < PASS_PROBABILITY, random() < PASS_PROBABILITY] as const);
  const one = measure(passes, 1);
  const three = measure(passes, 3);
  const drawn = passes.flat().filter(Boolean).length / (TASKS * 3);
  const share = (m: Measured) => (m.firstPass / TASKS).toFixed(3);
  const row = (n: number, m: Measured, expected: number) => [String(n), share(m), expected.toFixed(3), `$${m.costUsd.toFixed(2)}`, String(m.calls), (m.costUsd / one.costUsd).toFixed(2), m.seconds.toFixed(1)];
  const rate = (r: number | null) => (r === null ? 'none' : r.toFixed(3));
  const statsRow = (n: number, m: Measured) => [String(n), String(m.stats.tasks.merged), rate(m.stats.firstPassGateRate), rate(m.stats.sendBackRate), m.stats.costUsdPerMergedTask === null ? 'none' : `$${m.stats.costUsdPerMergedTask.toFixed(4)}`];
  return {
    title: '14. Candidates',
    method:
      `${TASKS} independent tasks, each writing its own file, run twice through the built CLI (\`taskloom run --plan … --script …\`, maxParallel 4, real git worktrees, ` +
      `gate \`node check.js\`): once with one candidate per task, once with \`--candidates 3\`. Each candidate passes the gate with probability ${PASS_PROBABILITY}, ` +
      `drawn with a seeded generator (seed ${SEED}) once per task and candidate, so the N = 1 run meets each task's candidate 1; a retry passes. Every agent call costs $${COST_PER_CALL}. ` +
      'A task is green without a retry when its log holds no RETRY_BUILD. Baseline: the N = 1 run, and the expected shares 1 − (1 − p)^N.',
    tables: [
      {
        headers: ['candidates', 'green without a retry', 'expected', 'cost', 'agent calls', 'cost / N = 1', 'wall s'],
        numeric: [1, 2, 3, 4, 5, 6],
        rows: [row(1, one, PASS_PROBABILITY), row(3, three, 1 - (1 - PASS_PROBABILITY) ** 3)],
      },
      {
        headers: ['candidates (taskloom stats --json)', 'tasks merged', 'firstPassGateRate', 'sendBackRate', 'costUsdPerMergedTask'],
        numeric: [1, 2, 3, 4],
        rows: [statsRow(1, one), statsRow(3, three)],
      },
    ],
    notes: [
      `Three candidates take the share of tasks green without a retry from ${share(one)} to ${share(three)} (expected 0.500 and 0.875; ${(drawn * 100).toFixed(1)}% of the drawn candidates pass) ` +
        `for ${(three.costUsd / one.costUsd).toFixed(2)}× the cost: every candidate's actor is paid for, and a comparison when two or more pass, while retries and their reviews fall away.`,
    ],
  };
}

function measure(passes: ReadonlyArray<readonly boolean[]>, candidates: number): Measured {
  const repo = makeTempRepo({ files: { 'check.js': CHECK } });
  const inputs = mkdtempSync(join(tmpdir(), 'taskloom-bench-candidates-'));
  try {
    const ids = passes.map((_, i) => `t${String(i + 1).padStart(2, '0')}`);
    const plan = { goal: 'candidates bench', tasks: ids.map((id) => ({ id, title: id, description: `write ok to ${id}.task`, acceptance: [], dependsOn: [] })) };
    const step = (id: string, ok: boolean) => ({ write: { [`${id}.task`]: ok ? 'ok\n' : 'not yet\n' } });
    const tasks = Object.fromEntries(
      ids.map((id, i) => [
        id,
        {
          // Candidate 1's draw is the task's own first attempt; the retry passes.
          actor: [step(id, passes[i]![0]!), step(id, true)],
          candidates: passes[i]!.map((ok) => ({ actor: [step(id, ok)] })),
          compare: [{ output: { pick: passes[i]!.findIndex(Boolean) + 1, reasons: 'the first that passed' } }],
        },
      ]),
    );
    writeFileSync(join(inputs, 'plan.json'), JSON.stringify(plan));
    writeFileSync(join(inputs, 'scenario.json'), JSON.stringify({ defaults: { costUsd: COST_PER_CALL }, tasks }));
    const started = performance.now();
    // The run is the thing measured: the built CLI, as a user starts it.
    const run = spawnSync(
      process.execPath,
      [CLI, 'run', '--cwd', repo.dir, '--plan', join(inputs, 'plan.json'), '--script', join(inputs, 'scenario.json'), '--yes', '--parallel', '4', '--gate', 'node check.js', '--candidates', String(candidates)],
      { encoding: 'utf8', timeout: 1_800_000 },
    );
    const seconds = (performance.now() - started) / 1000;
    if (run.status !== 0) throw new Error(`the N = ${candidates} run ended ${run.status}: ${run.stderr || run.stdout}`);
    const runs = join(repo.dir, '.taskloom', 'runs');
    const events = readFileSync(join(runs, readdirSync(runs)[0]!, 'events.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as RunEvent);
    const retried = new Set(events.flatMap((e) => (e.type === 'task_transition' && e.event === 'RETRY_BUILD' ? [e.taskId] : [])));
    const calls = events.filter((e) => e.type === 'runner_call');
    const costUsd = calls.reduce((sum, e) => sum + (e.type === 'runner_call' ? e.usage.costUsd : 0), 0);
    // The same run read back as a user reads it, through the built CLI's stats: its figures beside the bench's count.
    const stats = spawnSync(process.execPath, [CLI, 'stats', '--cwd', repo.dir, '--json'], { encoding: 'utf8' });
    if (stats.status !== 0) throw new Error(`taskloom stats ended ${stats.status}: ${stats.stderr}`);
    const shown = spawnSync(process.execPath, [CLI, 'stats', '--cwd', repo.dir], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    process.stderr.write(`bench: taskloom stats of the N = ${candidates} run:\n${shown.stdout}`);
    return { firstPass: TASKS - retried.size, costUsd, calls: calls.length, seconds, stats: JSON.parse(stats.stdout) as RunStats };
  } finally {
    repo.cleanup();
    rmSync(inputs, { recursive: true, force: true });
  }
}
