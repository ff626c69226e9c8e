import { TaskloomEngine } from '../../engine/run/engine';
import { discardRun } from '../../engine/usecases/discardRun';
import { foregroundDoor } from '../../engine/usecases/frontDoor';
import { getRun } from '../../engine/usecases/readRuns';
import { askYesNo } from '../askYesNo';
import { EXIT } from '../cliErrors';
import { bold } from '../format';
import { parseCommandArgs } from '../parseCommandArgs';
import { printNewWarnings } from '../engineWarnings';
import { FLAG_LABELS } from '../runOptions';
import { counted } from '../../engine/text/counted';
import { RUN_STATUS_WORDS } from '../../engine/domain/stateWords';

export const DISCARD_USAGE = 'taskloom discard [RUN_ID] [--yes] [--force] [--cwd DIR]';

/**
 * `taskloom discard [RUN_ID] [--yes] [--force]`: removes a run's worktrees, branches, snapshot refs
 * and record (src/engine/usecases/discardRun.ts). Refuses, without --force, to delete approved work
 * that was never applied or pushed.
 */
export async function discardCommand(argv: string[]): Promise<number> {
  const { values, positionals, cwd } = parseCommandArgs(argv, { yes: { type: 'boolean', short: 'y' }, force: { type: 'boolean' } });
  const engine = await TaskloomEngine.open(cwd, { command: 'taskloom discard' });
  try {
    const run = getRun(engine.store, { runId: positionals[0] });
    process.stdout.write(`${bold('Discard')} run ${run.runId} (${RUN_STATUS_WORDS[run.status]}): "${run.goal.split('\n')[0]}"\n`);
    if (!values.yes && !(await askYesNo('Delete its worktrees, branches and record?', { message: 'Discarding deletes the run: it needs your yes', hint: `Pass --yes to discard without a prompt: ${DISCARD_USAGE}` }))) {
      process.stdout.write('Not discarded.\n');
      return EXIT.needsHuman;
    }
    const removed = await discardRun(foregroundDoor(engine, FLAG_LABELS), { runId: run.runId, force: values.force === true });
    printNewWarnings(engine);
    process.stdout.write(`Discarded run ${run.runId}: ${counted(removed.worktrees.length, 'worktree')} and ${counted(removed.branches.length, 'branch', 'branches')} removed.\n`);
    return EXIT.ok;
  } finally {
    await engine.drainNotifications();
    engine.close();
  }
}
