import type { HumanAction } from '../../engine/domain/events';
import { resumedByDecision } from '../../engine/domain/humanActions';
import { TaskloomEngine } from '../../engine/run/engine';
import type { RunSession } from '../../engine/session/runSession';
import { EXIT, UsageError } from '../cliErrors';
import { confirmForeignRun } from '../confirmForeignRun';
import { driveWithProgress } from '../driveWithProgress';
import { bold, red, yellow } from '../format';
import { parseCommandArgs } from '../parseCommandArgs';

const USAGE: Record<HumanAction, string> = {
  retry: 'taskloom retry TASK [--note TEXT] [--run ID]',
  accept: 'taskloom accept TASK [--run ID]',
  skip: 'taskloom skip TASK [--run ID]',
  resolve: 'taskloom resolve TASK [--run ID]',
  continue: 'taskloom continue TASK [--run ID]',
};

/**
 * `taskloom retry|accept|skip|resolve|continue TASK [--run ID] [--note TEXT] [--yes]`: records the
 * decision, then continues the run, except `resolve`, which leaves the task's worktree to the user.
 */
export async function decideCommand(action: HumanAction, argv: string[]): Promise<number> {
  const { values, positionals, cwd } = parseCommandArgs(argv, { run: { type: 'string' }, note: { type: 'string' }, yes: { type: 'boolean', short: 'y' } });
  const taskId = positionals[0];
  if (!taskId) throw new UsageError(`${action} needs a task id: ${USAGE[action]}`);
  const engine = await TaskloomEngine.open(cwd, { command: `taskloom ${action}` });
  try {
    const runId = (values.run as string | undefined) ?? engine.store.lastRunId();
    if (!runId) throw new UsageError('There is no run here', 'Start one with: taskloom run --plan FILE');
    const session = engine.session(runId);
    if (!session.state.tasks[taskId]) {
      throw new UsageError(`Run ${runId} has no task "${taskId}"`, `Its tasks: ${session.state.taskOrder.join(', ')}`);
    }
    // Asked before the decision is recorded: the run is driven afterwards.
    if (!(await confirmForeignRun(engine, session, values.yes === true, `taskloom ${action} ${taskId} --run ${runId}`))) return EXIT.needsHuman;
    for (const warning of engine.warnings.splice(0)) process.stderr.write(yellow(`warning: ${warning}\n`));
    if (action === 'resolve') return await resolveByHand(engine, session, taskId);
    const resumed = resumedByDecision(session.state, taskId);
    if (action === 'continue') {
      const outcome = await engine.continueAfterHandResolution(session, taskId, new AbortController().signal);
      if (!outcome.passed) return reportFailedContinue(session, taskId, outcome.gate.commands);
    } else {
      await engine.recordHumanDecision(session, taskId, action, values.note as string | undefined);
    }
    if (resumed) process.stdout.write(`${yellow(cancelledRunResumes(session.runId, action, taskId, resumed.alsoTakenUp))}\n`);
    engine.prepareResume(session, `human chose to ${action} "${taskId}"`);
    return await driveWithProgress(engine, session);
  } finally {
    engine.close();
  }
}

const DECIDING: Record<Exclude<HumanAction, 'resolve'>, string> = { retry: 'retrying', accept: 'accepting', skip: 'skipping', continue: 'continuing' };

/** Said before a cancelled run is driven on by a decision: the user stopped it, so it must not restart unannounced. */
function cancelledRunResumes(runId: string, action: Exclude<HumanAction, 'resolve'>, taskId: string, alsoTakenUp: string[]): string {
  const others = alsoTakenUp.length
    ? `, and its other cancelled ${alsoTakenUp.length === 1 ? 'task' : 'tasks'} (${alsoTakenUp.join(', ')}) ${alsoTakenUp.length === 1 ? 'is' : 'are'} taken up again too`
    : '';
  return `Run ${runId} was cancelled: ${DECIDING[action]} ${taskId} resumes it${others}. Ctrl-C cancels it again.`;
}

async function resolveByHand(engine: TaskloomEngine, session: RunSession, taskId: string): Promise<number> {
  const { path, conflicts } = await engine.resolveByHand(session, taskId);
  const run = `--run ${session.runId} --cwd ${JSON.stringify(session.state.repoRoot)}`;
  const lines = [
    `${bold(taskId)} is yours to resolve, in its worktree:`,
    `  ${path}`,
    conflicts.length
      ? `The integration branch is merged in, with conflicts in:\n${conflicts.map((f) => `  ${f}`).join('\n')}\nEdit them (remove every conflict marker); git's tools work there too (git mergetool, git diff).`
      : 'The integration branch is merged in cleanly; fix what the integration gate found there.',
    `Then: taskloom continue ${taskId} ${run}   (commits it, runs the gate, and merges it when it passes)`,
    `Or:   taskloom retry ${taskId} --note "…" ${run}   (give it back to the agent)  ·  taskloom skip ${taskId} ${run}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.needsHuman;
}

function reportFailedContinue(session: RunSession, taskId: string, commands: Array<{ command: string; exitCode: number | null; output: string }>): number {
  const failed = commands.find((c) => c.exitCode !== 0);
  process.stdout.write(
    `${red('The gate does not pass on your resolution yet')}: \`${failed?.command ?? '?'}\` exited ${failed?.exitCode}\n${(failed?.output ?? '').trimEnd()}\n` +
      `Fix it in ${session.task(taskId).worktreePath ?? 'the task worktree'}, then run: taskloom continue ${taskId} --run ${session.runId}\n`,
  );
  return EXIT.needsHuman;
}
