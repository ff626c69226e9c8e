import type { ApplyHistory } from '../../engine/domain/events';
import { TaskloomEngine } from '../../engine/run/engine';
import { applyIntegration, previewApply } from '../../engine/usecases/applyIntegration';
import { foregroundDoor } from '../../engine/usecases/frontDoor';
import { askYesNo } from '../askYesNo';
import { EXIT } from '../cliErrors';
import { bold, dim, green, yellow } from '../format';
import { parseCommandArgs } from '../parseCommandArgs';
import { commandSettings, definedOnly } from '../commandSettings';
import { FLAG_LABELS } from '../runOptions';
import { appliedAs, HISTORY_WORDS } from '../../engine/text/applyWords';
import { counted } from '../../engine/text/counted';

export const APPLY_USAGE = 'taskloom apply [RUN_ID] [--squash] [--yes] [--cwd DIR]';

/**
 * `taskloom apply [RUN_ID] [--squash] [--yes]`: lands a completed run on the branch checked out in
 * the repository (src/engine/usecases/applyIntegration.ts), one commit per task, joined by a merge
 * commit (with --squash, without one). Says how many commits it will make and asks first in a
 * terminal; then says how many it made.
 */
export async function applyCommand(argv: string[]): Promise<number> {
  const { values, positionals, cwd } = parseCommandArgs(argv, { squash: { type: 'boolean' }, yes: { type: 'boolean', short: 'y' } });
  const engine = await TaskloomEngine.open(cwd, { command: 'taskloom apply' });
  try {
    // --squash, else TASKLOOM_APPLY_HISTORY or taskloom.json's apply.history, else a merge commit.
    const settings = await commandSettings(engine.repo.root, definedOnly({ 'apply.history': values.squash ? 'squash' : undefined }), { allowConfig: false, onWithheld: 'ask', reads: ['apply.history'] });
    const history = (settings?.values['apply.history'] as ApplyHistory | undefined) ?? 'merge';
    const door = foregroundDoor(engine, FLAG_LABELS);
    const preview = await previewApply(door, { runId: positionals[0], history });
    const { runId, branch } = preview;
    if (preview.alreadyApplied) {
      process.stdout.write(`Run ${runId} is already in ${branch}; nothing to apply.\n`);
      return EXIT.ok;
    }
    const skipped = preview.leftOut.map((t) => t.taskId);
    process.stdout.write(
      `${bold('Apply')} run ${runId} to ${branch} as ${counted(preview.commits, 'commit')} (${history} history: ${HISTORY_WORDS[history]}): ${counted(preview.merged, 'merged task')}` +
        `${skipped.length ? `; ${yellow(`not included (skipped): ${skipped.join(', ')}`)}` : ''}\n`,
    );
    if (!values.yes && !(await askYesNo(`Apply it to ${branch} as ${counted(preview.commits, 'commit')}?`, { message: 'Applying changes your branch: it needs your yes', hint: `Pass --yes to apply without a prompt: ${APPLY_USAGE}` }))) {
      process.stdout.write('Not applied; your branch is unchanged.\n');
      return EXIT.needsHuman;
    }
    const applied = await applyIntegration(door, { runId, history });
    if (applied.alreadyApplied) {
      process.stdout.write(`Run ${runId} is already in ${applied.branch}; nothing to apply.\n`);
      return EXIT.ok;
    }
    process.stdout.write(
      `${green('Applied')} to ${applied.branch} as ${appliedAs(history, applied.commits)}: now at ${applied.commit.slice(0, 10)}, ${counted(applied.files.length, 'file')} changed.\n` +
        dim(`The agents' drafts stay on the run's branches and refs/taskloom/${runId}/ until you discard it: taskloom discard ${runId}\n`),
    );
    return EXIT.ok;
  } finally {
    await engine.drainNotifications();
    engine.close();
  }
}
