import type { TaskloomEngine } from '../engine/run/engine';
import { describeWhatWouldRun } from '../engine/run/runProvenance';
import type { RunSession } from '../engine/session/runSession';
import { askYesNo } from './askYesNo';
import { yellow } from './format';

/**
 * Before driving a run this user did not create here (e.g. a `.taskloom/` that came with the
 * repository): shows what would run and asks; without a terminal refuses unless `--yes`.
 * Returns false when the user said no. A confirmed run is recorded as known.
 */
export async function confirmForeignRun(engine: TaskloomEngine, session: RunSession, yes: boolean, command: string): Promise<boolean> {
  if (engine.isKnownRun(session)) return true;
  const { state } = session;
  const host = typeof state.createdBy?.host === 'string' ? state.createdBy.host : 'unknown';
  const lines = describeWhatWouldRun(state).map((l) => `  ${l}`);
  process.stdout.write(
    `${yellow(`This run was not started by Taskloom on this machine (run ${state.runId}, recorded as created on host "${host}"; its .taskloom/ may have come with the repository). Resuming it would run:`)}\n${lines.join('\n')}\n`,
  );
  if (!yes) {
    const answer = await askYesNo('Resume it?', {
      message: `Refusing to run commands from run ${state.runId}, which was not started by Taskloom on this machine`,
      hint: `Check the commands above; pass --yes to resume it anyway: ${command} --yes`,
    });
    if (!answer) {
      process.stdout.write('Not resumed; nothing was run.\n');
      return false;
    }
  }
  engine.trustRun(session);
  return true;
}
