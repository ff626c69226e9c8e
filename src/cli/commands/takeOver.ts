import { TaskloomEngine } from '../../engine/run/engine';
import { foregroundDoor } from '../../engine/usecases/frontDoor';
import { takeOver, type TakenOver } from '../../engine/usecases/takeOver';
import { TaskloomError } from '../../engine/domain/taskloomError';
import { EXIT, UsageError } from '../cliErrors';
import { bold, red, yellow } from '../format';
import { openWriterOrReader } from '../openWorkspace';
import { parseCommandArgs } from '../parseCommandArgs';
import { FLAG_LABELS } from '../runOptions';

export const TAKE_OVER_USAGE = 'taskloom take-over TASK [--run ID]';

/**
 * `taskloom take-over TASK [--run ID]`: src/engine/usecases/takeOver.ts, then the task's session
 * in the foreground on this terminal (its agent resumed, or a shell), confined as its actor is.
 * The workspace lock is let go first: a session lasts as long as the person works, and the run's
 * other commands (another terminal's `continue`, the editor) must work meanwhile.
 */
export async function takeOverCommand(argv: string[]): Promise<number> {
  const { values, positionals, cwd } = parseCommandArgs(argv, { run: { type: 'string' } });
  const taskId = positionals[0];
  if (!taskId) throw new UsageError(`take-over needs a task id: ${TAKE_OVER_USAGE}`);
  const engine = await openWriterOrReader(cwd, 'taskloom take-over');
  let taken: TakenOver;
  try {
    taken = await takeOver(foregroundDoor(engine, FLAG_LABELS), { runId: values.run as string | undefined, taskId, by: 'you' });
  } finally {
    await engine.drainNotifications();
    engine.close();
  }
  process.stdout.write(`${openingWords(taken)}\n`);
  const reader = await TaskloomEngine.open(cwd, { command: 'taskloom take-over', readOnly: true });
  try {
    const { end } = await reader.runTakeOverSession(reader.store.loadRun(taken.runId).state, taskId);
    if (!end.started) {
      throw new TaskloomError('needs_environment', `The session for ${taskId} did not start: ${end.reason}`, 'Doctor checks the agents and the sandbox; the task still waits for you.');
    }
    process.stdout.write(`${handBackWords(taken, cwd)}\n`);
    return EXIT.needsHuman;
  } finally {
    reader.close();
  }
}

function openingWords({ taskId, session, confinement, recorded }: TakenOver): string {
  const what =
    session.program === 'shell'
      ? 'a shell (its agent has no interactive session of its own)'
      : `${session.program}${session.resumes ? `, resuming its session ${session.resumes}` : ', in a new session (its actor left none to resume)'}`;
  const lines = [
    `${bold(taskId)} is yours: ${what}, in its worktree`,
    `  ${session.worktree}`,
    confinement.confined
      ? `Confined as its agent was: the worktree is writable, nothing else of yours is there, and ${session.program === 'shell' ? 'there is no network' : "only the agent's model host is reachable"}. Taskloom commits what you leave when you hand it back.`
      : red(`UNCONFINED: the session runs with your files, environment and network (${confinement.reason}).`),
  ];
  if (!recorded) lines.push(yellow('The process that drives the run has not recorded the take over yet; the task reads "stopped by you" until it does.'));
  return lines.join('\n');
}

function handBackWords({ runId, taskId }: TakenOver, cwd: string): string {
  const run = `--run ${runId} --cwd ${JSON.stringify(cwd)}`;
  return [
    `Your session on ${bold(taskId)} ended; the task waits for you.`,
    `Hand it back:  taskloom continue ${taskId} ${run}   (commits what is in the worktree, gates it, has the critic review it, and carries on)`,
    `Or:            taskloom take-over ${taskId} ${run}  ·  taskloom retry ${taskId} --note "…" ${run}  ·  taskloom skip ${taskId} ${run}`,
  ].join('\n');
}
