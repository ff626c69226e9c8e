import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { DEFAULT_RUN_CONFIG, type RunConfig } from '../../engine/domain/runConfig';
import { parsePlan } from '../../engine/plan/parsePlan';
import { TaskloomEngine } from '../../engine/run/engine';
import { Git } from '../../engine/workspace/git';
import { UsageError } from '../cliErrors';
import { DEMO_FILES, DEMO_PLAN, demoScenario } from '../demo/demoProject';
import { driveWithProgress } from '../driveWithProgress';
import { bold, dim } from '../format';
import { parseCommandArgs } from '../parseCommandArgs';

/**
 * `taskloom demo [--dir DIR] [--delay MS]`: makes a small real project with a `node --test`
 * suite and runs a five-task plan on it with the scripted agent, start to merge.
 */
export async function demoCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(argv, { dir: { type: 'string' }, delay: { type: 'string' }, parallel: { type: 'string' } });
  const dir = prepareDemoDir(values.dir as string | undefined);
  const delayMs = values.delay === undefined ? 400 : Number(values.delay);
  if (!Number.isInteger(delayMs) || delayMs < 0) throw new UsageError(`--delay must be a whole number of ms, got "${values.delay}"`);

  process.stdout.write(`${bold('Taskloom demo')} in ${dir}\n${dim('A real git repository with a node --test suite; the scripted agent plays planner, actor and critic.')}\n\n`);
  for (const [path, content] of Object.entries(DEMO_FILES)) writeInto(dir, path, content);
  const git = await new Git(dir).typed();
  await git.init(['--initial-branch=main']);
  await git.add('.');
  await git.commit('textkit: first commit', undefined, { '--no-verify': null });

  const scenarioPath = writeInto(dir, '.taskloom/demo/scenario.json', JSON.stringify(demoScenario(delayMs), null, 2));
  writeInto(dir, '.taskloom/demo/plan.json', JSON.stringify(DEMO_PLAN, null, 2));
  const plan = parsePlan(DEMO_PLAN);
  const config: RunConfig = {
    ...DEFAULT_RUN_CONFIG,
    maxParallel: values.parallel ? Number(values.parallel) : 2,
    stuckThresholdSeconds: 120,
    gateTimeoutSeconds: 120,
    gateCommands: ['npm test --silent'],
    agent: { kind: 'scripted', scriptPath: scenarioPath },
  };

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

function prepareDemoDir(requested: string | undefined): string {
  if (!requested) return mkdtempSync(join(tmpdir(), 'taskloom-demo-'));
  const dir = resolve(requested);
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    throw new UsageError(`--dir ${dir} is not empty`, 'The demo makes a new repository: give it a new or empty folder.');
  }
  mkdirSync(dir, { recursive: true });
  return dir;
}

function writeInto(root: string, relPath: string, content: string): string {
  const path = join(root, relPath);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  return path;
}
