import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { demoRunSettings, makeDemoFolder } from '../../engine/demo/demoFolder';
import { DEMO_PLAN } from '../../engine/demo/demoProject';
import { parsePlan } from '../../engine/plan/parsePlan';
import { TaskloomEngine } from '../../engine/run/engine';
import { runConfigFromSettings } from '../../engine/run/runConfigFromSettings';
import { UsageError } from '../cliErrors';
import { FLAG_LABELS } from '../runOptions';
import { driveWithProgress } from '../driveWithProgress';
import { bold, dim } from '../format';
import { parseCommandArgs } from '../parseCommandArgs';

/**
 * `taskloom demo [--dir DIR] [--delay MS]`: makes a small real project with a `node --test`
 * suite and runs a five-task plan on it with the scripted agent, start to merge.
 */
export async function demoCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(argv, { dir: { type: 'string' }, delay: { type: 'string' }, parallel: { type: 'string' } });
  const delayMs = values.delay === undefined ? 400 : Number(values.delay);
  if (!Number.isInteger(delayMs) || delayMs < 0) throw new UsageError(`--delay must be a whole number of ms, got "${values.delay}"`);
  const dir = values.dir === undefined ? mkdtempSync(join(tmpdir(), 'taskloom-demo-')) : resolve(values.dir as string);

  process.stdout.write(`${bold('Taskloom demo')} in ${dir}\n${dim('A real git repository with a node --test suite; the scripted agent plays planner, actor and critic.')}\n\n`);
  const folder = await makeDemoFolder(dir, delayMs);
  const plan = parsePlan(DEMO_PLAN);
  const settings = demoRunSettings(folder, values.parallel ? Number(values.parallel) : undefined);
  const config = runConfigFromSettings(settings, { baseDir: dir, repoRoot: dir, labels: FLAG_LABELS });

  const engine = await TaskloomEngine.open(dir, { command: 'taskloom demo' });
  try {
    const session = engine.createRun(plan, config);
    engine.approvePlan(session, 'autopilot');
    process.stdout.write(`${bold('Run')} ${session.runId}: ${plan.tasks.length} tasks, at most ${config.maxParallel} at once\n`);
    const code = await driveWithProgress(engine, session);
    process.stdout.write(`\n${dim('Look around:')}\n  node dist/cli.js trace --cwd ${dir}\n  git -C ${dir} log --graph --oneline ${session.state.integration.branch ?? ''}\n`);
    return code;
  } finally {
    engine.close();
  }
}
