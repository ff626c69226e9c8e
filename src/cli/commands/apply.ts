import type { ApplyHistory } from '../../engine/domain/events';
import { applicableHead, applyRun } from '../../engine/deliver/applyRun';
import { TaskloomEngine } from '../../engine/run/engine';
import { askYesNo } from '../askYesNo';
import { EXIT, UsageError } from '../cliErrors';
import { bold, dim, green, yellow } from '../format';
import { parseCommandArgs } from '../parseCommandArgs';
import { counted } from '../../engine/text/counted';

export const APPLY_USAGE = 'taskloom apply [RUN_ID] [--squash] [--yes] [--cwd DIR]';

/**
 * `taskloom apply [RUN_ID] [--squash] [--yes]`: lands a completed run on the branch checked out in
 * the repository: one merge commit, or with --squash one commit per task. Asks first in a terminal.
 */
export async function applyCommand(argv: string[]): Promise<number> {
  const { values, positionals, cwd } = parseCommandArgs(argv, { squash: { type: 'boolean' }, yes: { type: 'boolean', short: 'y' } });
  const history: ApplyHistory = values.squash ? 'squash' : 'merge';
  const engine = await TaskloomEngine.open(cwd, { command: 'taskloom apply' });
  try {
    const runId = positionals[0] ?? engine.store.lastRunId();
    if (!runId) throw new UsageError('There is no run here', 'Start one with: taskloom run --plan FILE');
    const session = engine.session(runId);
    const { state } = session;
    await applicableHead(state, engine.repo.root);
    const skipped = state.taskOrder.filter((id) => state.tasks[id]!.state === 'SKIPPED');
    const how = history === 'squash' ? 'one commit per task' : 'one merge commit';
    process.stdout.write(
      `${bold('Apply')} run ${runId} to ${engine.repo.headRef} (${how}): ${counted(state.integration.merged.length, 'merged task')}` +
        `${skipped.length ? `; ${yellow(`not included (skipped): ${skipped.join(', ')}`)}` : ''}\n`,
    );
    if (!values.yes && !(await askYesNo(`Apply it to ${engine.repo.headRef}?`, { message: 'Applying changes your branch: it needs your yes', hint: `Pass --yes to apply without a prompt: ${APPLY_USAGE}` }))) {
      process.stdout.write('Not applied; your branch is unchanged.\n');
      return EXIT.needsHuman;
    }
    const applied = await applyRun(session, cwd, history);
    if (applied.alreadyApplied) {
      process.stdout.write(`Run ${runId} is already in ${applied.branch}; nothing to apply.\n`);
      return EXIT.ok;
    }
    process.stdout.write(
      `${green('Applied')} to ${applied.branch} as ${counted(applied.commits, 'commit')}: now at ${applied.commit.slice(0, 10)}, ${counted(applied.files.length, 'file')} changed.\n` +
        dim(`Discard the run's branches and worktrees when you no longer need them: taskloom discard ${runId}\n`),
    );
    return EXIT.ok;
  } finally {
    engine.close();
  }
}
