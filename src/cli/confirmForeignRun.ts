import { UnknownRunError } from '../engine/run/runProvenance';
import { askYesNo } from './askYesNo';
import { yellow } from './format';

/**
 * Runs a use case that drives a run, asking first when the run was not started by Taskloom on
 * this machine (e.g. a `.taskloom/` that came with the repository): the use case refuses it
 * (UnknownRunError, with what would run), this shows what would run and asks (without a terminal
 * it refuses unless `--yes`), then calls it again trusting the run. Undefined when the user said no.
 */
export async function withForeignRunConfirmed<T>(yes: boolean, command: (runId: string) => string, useCase: (trustRun: boolean) => Promise<T> | T): Promise<T | undefined> {
  try {
    return await useCase(false);
  } catch (error) {
    if (!(error instanceof UnknownRunError)) throw error;
    const lines = error.whatWouldRun.map((l) => `  ${l}`);
    process.stdout.write(
      `${yellow(`This run was not started by Taskloom on this machine (run ${error.runId}, recorded as created on host "${error.claimedHost}"; its .taskloom/ may have come with the repository). Resuming it would run:`)}\n${lines.join('\n')}\n`,
    );
    if (!yes) {
      const answer = await askYesNo('Resume it?', {
        message: `Refusing to run commands from run ${error.runId}, which was not started by Taskloom on this machine`,
        hint: `Check the commands above; pass --yes to resume it anyway: ${command(error.runId)} --yes`,
      });
      if (!answer) {
        process.stdout.write('Not resumed; nothing was run.\n');
        return undefined;
      }
    }
    return await useCase(true);
  }
}
