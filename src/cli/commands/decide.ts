import type { HumanAction } from '../../engine/domain/events';
import type { HandResolution } from '../../engine/run/handResolution';
import { TaskloomEngine } from '../../engine/run/engine';
import type { RunSession } from '../../engine/session/runSession';
import { decideTask, type ResolutionFailsGate, type RunGoesOn } from '../../engine/usecases/decideTask';
import { foregroundDoor } from '../../engine/usecases/frontDoor';
import { EXIT, UsageError } from '../cliErrors';
import { withForeignRunConfirmed } from '../confirmForeignRun';
import { driveWithProgress } from '../driveWithProgress';
import { printNewWarnings } from '../engineWarnings';
import { bold, red, yellow } from '../format';
import { parseCommandArgs } from '../parseCommandArgs';
import { FLAG_LABELS } from '../runOptions';

const USAGE: Record<HumanAction, string> = {
  retry: 'taskloom retry TASK [--note TEXT] [--run ID]',
  accept: 'taskloom accept TASK [--run ID]',
  skip: 'taskloom skip TASK [--run ID]',
  resolve: 'taskloom resolve TASK [--run ID]',
  continue: 'taskloom continue TASK [--run ID]',
};

/**
 * `taskloom retry|accept|skip|resolve|continue TASK [--run ID] [--note TEXT] [--yes]`: the decision
 * (src/engine/usecases/decideTask.ts), then the run driven on in the foreground, except after
 * `resolve`, which leaves the task's worktree to the user.
 */
export async function decideCommand(action: HumanAction, argv: string[]): Promise<number> {
  const { values, positionals, cwd } = parseCommandArgs(argv, { run: { type: 'string' }, note: { type: 'string' }, yes: { type: 'boolean', short: 'y' } });
  const taskId = positionals[0];
  if (!taskId) throw new UsageError(`${action} needs a task id: ${USAGE[action]}`);
  const engine = await TaskloomEngine.open(cwd, { command: `taskloom ${action}` });
  try {
    const door = foregroundDoor(engine, FLAG_LABELS);
    const params = { runId: values.run as string | undefined, taskId, action, note: values.note as string | undefined };
    const outcome = await withForeignRunConfirmed(values.yes === true, (runId) => `taskloom ${action} ${taskId} --run ${runId}`, (trustRun) => decideTask(door, { ...params, trustRun }));
    printNewWarnings(engine);
    if (!outcome) return EXIT.needsHuman;
    switch (outcome.kind) {
      case 'resolvingByHand':
        return printHandResolution(outcome.session, taskId, outcome.resolution);
      case 'resolutionFailsGate':
        return reportFailedContinue(taskId, outcome);
      default:
        return await driveOn(engine, outcome, action as Exclude<HumanAction, 'resolve'>, taskId);
    }
  } finally {
    await engine.drainNotifications();
    engine.close();
  }
}

async function driveOn(engine: TaskloomEngine, decided: RunGoesOn, action: Exclude<HumanAction, 'resolve'>, taskId: string): Promise<number> {
  // Only a door that drives in the background has a drive under way to take a decision up; the CLI drives in the foreground.
  if (decided.kind === 'takenUpByDrive') return EXIT.ok;
  const { session, resumesCancelledRun } = decided;
  if (resumesCancelledRun) process.stdout.write(`${yellow(cancelledRunResumes(session.runId, action, taskId, resumesCancelledRun.alsoTakenUp))}\n`);
  return driveWithProgress(engine, session);
}

const DECIDING: Record<Exclude<HumanAction, 'resolve'>, string> = { retry: 'retrying', accept: 'accepting', skip: 'skipping', continue: 'continuing' };

/** Said before a cancelled run is driven on by a decision: the user stopped it, so it must not restart unannounced. */
function cancelledRunResumes(runId: string, action: Exclude<HumanAction, 'resolve'>, taskId: string, alsoTakenUp: string[]): string {
  const others = alsoTakenUp.length
    ? `, and its other cancelled ${alsoTakenUp.length === 1 ? 'task' : 'tasks'} (${alsoTakenUp.join(', ')}) ${alsoTakenUp.length === 1 ? 'is' : 'are'} taken up again too`
    : '';
  return `Run ${runId} was cancelled: ${DECIDING[action]} ${taskId} resumes it${others}. Ctrl-C cancels it again.`;
}

function printHandResolution(session: RunSession, taskId: string, { path, conflicts }: HandResolution): number {
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

function reportFailedContinue(taskId: string, { runId, worktreePath, failure }: ResolutionFailsGate): number {
  process.stdout.write(
    `${red('The gate does not pass on your resolution yet')}: \`${failure?.command ?? '?'}\` exited ${failure?.exitCode}\n${(failure?.output ?? '').trimEnd()}\n` +
      `Fix it in ${worktreePath ?? 'the task worktree'}, then run: taskloom continue ${taskId} --run ${runId}\n`,
  );
  return EXIT.needsHuman;
}
