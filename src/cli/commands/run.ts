import { createInterface } from 'node:readline/promises';
import { resolve } from 'node:path';
import type { Plan } from '../../engine/domain/plan';
import { loadPlanFile } from '../../engine/plan/loadPlanFile';
import { TaskloomEngine } from '../../engine/run/engine';
import { EXIT, UsageError } from '../cliErrors';
import { driveWithProgress } from '../driveWithProgress';
import { bold, dim, yellow } from '../format';
import { buildRunConfig, RUN_CONFIG_OPTIONS, type RunConfigFlags } from '../runOptions';
import { parseCommandArgs } from '../parseCommandArgs';

export const RUN_USAGE = `taskloom run --plan FILE [--goal TEXT] [--agent scripted --script FILE] [--parallel N] [--yes]
       [--gate CMD]... [--max-attempts N] [--max-reviews N] [--stuck-seconds N] [--gate-timeout N] [--cwd DIR]`;

export async function runCommand(argv: string[]): Promise<number> {
  const { values, cwd } = parseCommandArgs(argv, {
    plan: { type: 'string' },
    goal: { type: 'string' },
    yes: { type: 'boolean', short: 'y' },
    ...RUN_CONFIG_OPTIONS,
  });
  if (!values.plan) throw new UsageError('run needs a plan: --plan FILE (JSON or a Markdown checklist)', RUN_USAGE);
  const plan = loadPlanFile(resolve(cwd, values.plan as string));
  const engine = await TaskloomEngine.open(cwd, { command: 'taskloom run' });
  try {
    for (const warning of engine.warnings) process.stderr.write(yellow(`warning: ${warning}\n`));
    const config = buildRunConfig(values as RunConfigFlags, cwd, engine.repo.root);
    const goal = (values.goal as string | undefined) ?? plan.goal;
    printPlan(plan, goal);
    if (!values.yes && !(await askApproval())) {
      process.stdout.write('Plan not approved; nothing was run.\n');
      return EXIT.needsHuman;
    }
    const session = engine.createRun(plan, config, goal);
    const { state } = session;
    process.stdout.write(
      `${bold('Run')} ${state.runId} from ${state.baseRef} @ ${state.baseCommit.slice(0, 10)}; gate: ${config.gateCommands.join(' && ') || dim('none configured')}\n`,
    );
    if (state.ignoredChanges.length) {
      process.stdout.write(
        yellow(`Your working tree has uncommitted changes; the run works from the last commit and ignores: ${state.ignoredChanges.join(', ')}\n`),
      );
    }
    engine.approvePlan(session, values.yes ? 'autopilot' : 'human');
    return await driveWithProgress(engine, session);
  } finally {
    engine.close();
  }
}

function printPlan(plan: Plan, goal: string): void {
  const lines = [`${bold('Goal')} ${goal}`, ...(plan.rationale ? [dim(plan.rationale)] : [])];
  for (const t of plan.tasks) {
    lines.push(`  ${bold(t.id)}  ${t.title}${t.dependsOn.length ? dim(`  (after ${t.dependsOn.join(', ')})`) : ''}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function askApproval(): Promise<boolean> {
  if (!process.stdin.isTTY) {
    throw new UsageError('The plan needs your approval', 'Pass --yes to approve it without a prompt, or run in a terminal to be asked.');
  }
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await rl.question('Approve this plan and start? [y/N] ');
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
