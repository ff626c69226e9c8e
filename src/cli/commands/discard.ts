import { discardRun } from '../../engine/deliver/discardRun';
import { TaskloomEngine } from '../../engine/run/engine';
import { askYesNo } from '../askYesNo';
import { EXIT, UsageError } from '../cliErrors';
import { bold } from '../format';
import { parseCommandArgs } from '../parseCommandArgs';
import { counted } from '../../engine/text/counted';
import { RUN_STATUS_WORDS } from '../../engine/domain/stateWords';

export const DISCARD_USAGE = 'taskloom discard [RUN_ID] [--yes] [--force] [--cwd DIR]';

/**
 * `taskloom discard [RUN_ID] [--yes] [--force]`: removes a run's worktrees, branches, snapshot refs
 * and record. Refuses, without --force, to delete approved work that was never applied or pushed.
 */
export async function discardCommand(argv: string[]): Promise<number> {
  const { values, positionals, cwd } = parseCommandArgs(argv, { yes: { type: 'boolean', short: 'y' }, force: { type: 'boolean' } });
  const engine = await TaskloomEngine.open(cwd, { command: 'taskloom discard' });
  try {
    const runId = positionals[0] ?? engine.store.lastRunId();
    if (!runId) throw new UsageError('There is no run here to discard', 'List the runs with: taskloom runs');
    const session = engine.session(runId);
    process.stdout.write(`${bold('Discard')} run ${runId} (${RUN_STATUS_WORDS[session.state.status]}): "${session.state.goal.split('\n')[0]}"\n`);
    if (!values.yes && !(await askYesNo('Delete its worktrees, branches and record?', { message: 'Discarding deletes the run: it needs your yes', hint: `Pass --yes to discard without a prompt: ${DISCARD_USAGE}` }))) {
      process.stdout.write('Not discarded.\n');
      return EXIT.needsHuman;
    }
    const removed = await discardRun(engine, session, values.force === true);
    process.stdout.write(`Discarded run ${runId}: ${counted(removed.worktrees.length, 'worktree')} and ${counted(removed.branches.length, 'branch', 'branches')} removed.\n`);
    return EXIT.ok;
  } finally {
    engine.close();
  }
}
