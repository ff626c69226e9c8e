import type { GcKeptReason, GcOutcome, RunLeftovers } from '../../engine/deliver/gcRuns';
import { TaskloomEngine } from '../../engine/run/engine';
import { collectLeftovers } from '../../engine/usecases/collectLeftovers';
import { foregroundDoor } from '../../engine/usecases/frontDoor';
import { FLAG_LABELS } from '../runOptions';
import { askYesNo } from '../askYesNo';
import { EXIT } from '../cliErrors';
import { bold, formatBytes, table, yellow } from '../format';
import { parseCommandArgs } from '../parseCommandArgs';
import { counted } from '../../engine/text/counted';

export const GC_USAGE = 'taskloom gc [--yes] [--dry-run] [--json] [--cwd DIR]';

/**
 * `taskloom gc [--yes] [--dry-run]`: removes the worktrees, branches and snapshot refs that
 * finished runs (completed, cancelled, failed) left, and prunes stale `git worktree` entries.
 * Approved work that was never applied or pushed is never removed; runs keep their record
 * (src/engine/usecases/collectLeftovers.ts).
 */
export async function gcCommand(argv: string[]): Promise<number> {
  const { values, cwd } = parseCommandArgs(argv, {
    yes: { type: 'boolean', short: 'y' },
    'dry-run': { type: 'boolean', short: 'n' },
    json: { type: 'boolean' },
  });
  const engine = await TaskloomEngine.open(cwd, { command: 'taskloom gc' });
  try {
    for (const w of engine.warnings) process.stderr.write(yellow(`warning: ${w}\n`));
    const door = foregroundDoor(engine, FLAG_LABELS);
    const plan = await collectLeftovers(door, { dryRun: true });
    const nothing = plan.freed.length === 0 && plan.staleEntries === 0;
    if (values['dry-run'] || nothing) {
      if (values.json) process.stdout.write(`${JSON.stringify(plan, null, 2)}\n`);
      else process.stdout.write(describe(plan));
      return EXIT.ok;
    }
    if (!values.json) process.stdout.write(describe(plan));
    if (!values.yes && !(await askYesNo('Remove them?', { message: 'gc deletes worktrees and branches: it needs your yes', hint: `Pass --yes to remove them without a prompt, or --dry-run to only look: ${GC_USAGE}` }))) {
      process.stdout.write('Nothing removed.\n');
      return EXIT.needsHuman;
    }
    const done = await collectLeftovers(door, { dryRun: false });
    if (values.json) process.stdout.write(`${JSON.stringify(done, null, 2)}\n`);
    else process.stdout.write(`${bold('Freed')} ${totals(done)}.\n`);
    return EXIT.ok;
  } finally {
    engine.close();
  }
}

function describe(outcome: GcOutcome): string {
  const out: string[] = [];
  if (outcome.freed.length) {
    out.push(`${outcome.dryRun ? 'Finished runs whose leftovers can go' : 'Removed'}:`);
    out.push(table([['run', 'status', 'disk', 'worktrees', 'branches', 'snapshot refs'], ...outcome.freed.map(row)]));
  }
  if (outcome.kept.length) {
    out.push(`${yellow('Kept')} (finished, but removing would lose something):`);
    out.push(table([['run', 'status', 'disk', 'why'], ...outcome.kept.map((k) => [k.runId, k.status, formatBytes(k.bytes), keptWords(k.runId, k.reason)])]));
  }
  if (outcome.freed.length === 0 && outcome.staleEntries === 0) {
    out.push(`Nothing to collect${outcome.kept.length ? '' : ': no finished run left worktrees, branches or refs behind'}.`);
  } else {
    out.push(`${outcome.dryRun ? 'Would free' : 'Freed'} ${totals(outcome)}.`);
  }
  return `${out.join('\n')}\n`;
}

function row(r: RunLeftovers): string[] {
  return [r.runId, r.status, formatBytes(r.bytes), String(r.worktrees), String(r.branches), String(r.snapshotRefs)];
}

function totals(outcome: GcOutcome): string {
  const sum = (key: 'bytes' | 'worktrees' | 'branches' | 'snapshotRefs') => outcome.freed.reduce((s, r) => s + r[key], 0);
  const stale = outcome.staleEntries ? `, ${outcome.staleEntries} stale worktree entr${outcome.staleEntries === 1 ? 'y' : 'ies'}` : '';
  return `${formatBytes(sum('bytes'))}: ${counted(sum('worktrees'), 'worktree')}, ${counted(sum('branches'), 'branch', 'branches')}, ${counted(sum('snapshotRefs'), 'snapshot ref')} of ${counted(outcome.freed.length, 'run')}${stale}`;
}

function keptWords(runId: string, reason: GcKeptReason): string {
  switch (reason.kind) {
    case 'unpublished_work':
      return `approved work never applied or pushed (${reason.taskIds.join(', ')}): taskloom apply ${runId}, or taskloom discard ${runId} --force`;
    case 'pull_request_open':
      return `pull request #${reason.number} is open: \`taskloom watch\` works from its branches`;
  }
}
