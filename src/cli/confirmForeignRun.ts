import { createInterface } from 'node:readline/promises';
import type { TaskloomEngine } from '../engine/run/engine';
import { describeWhatWouldRun } from '../engine/run/runProvenance';
import type { RunSession } from '../engine/run/runSession';
import { UsageError } from './cliErrors';
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
    if (!process.stdin.isTTY) {
      throw new UsageError(`Refusing to run commands from run ${state.runId}, which was not started by Taskloom on this machine`, `Check the commands above; pass --yes to resume it anyway: ${command} --yes`);
    }
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    try {
      const answer = await rl.question('Resume it? [y/N] ');
      if (!/^y(es)?$/i.test(answer.trim())) {
        process.stdout.write('Not resumed; nothing was run.\n');
        return false;
      }
    } finally {
      rl.close();
    }
  }
  engine.trustRun(session);
  return true;
}
