import { openPullRequests } from '../../engine/deliver/pullRequests';
import { TaskloomEngine } from '../../engine/run/engine';
import { EXIT, UsageError } from '../cliErrors';
import { bold, dim, green } from '../format';
import { parseCommandArgs } from '../parseCommandArgs';

export const PR_USAGE = 'taskloom pr [RUN_ID] [--remote NAME] [--repo OWNER/REPO] [--base BRANCH] [--draft] [--stacked] [--cwd DIR]';

/**
 * `taskloom pr`: pushes a completed run's integration branch and opens its GitHub pull request
 * (or updates the one it has), printing its URL; `--stacked` opens one per task instead.
 */
export async function prCommand(argv: string[]): Promise<number> {
  const { values, positionals, cwd } = parseCommandArgs(argv, {
    remote: { type: 'string' },
    repo: { type: 'string' },
    base: { type: 'string' },
    draft: { type: 'boolean' },
    stacked: { type: 'boolean' },
  });
  const engine = await TaskloomEngine.open(cwd, { command: 'taskloom pr' });
  try {
    const runId = positionals[0] ?? engine.store.lastRunId();
    if (!runId) throw new UsageError('There is no run here', `Start one with: taskloom run --plan FILE (then: ${PR_USAGE})`);
    const session = engine.session(runId);
    const opened = await openPullRequests(session, {
      remote: (values.remote as string | undefined) ?? 'origin',
      ...(values.repo ? { repo: values.repo as string } : {}),
      ...(values.base ? { base: values.base as string } : {}),
      draft: values.draft === true,
      stacked: values.stacked === true,
    });
    for (const { taskId, pullRequest, action } of opened) {
      process.stdout.write(
        `${green(`Pull request #${pullRequest.number} ${action}`)}${taskId ? ` for ${bold(taskId)}` : ''}: ${pullRequest.url}\n${dim(`  ${pullRequest.head} → ${pullRequest.base}`)}\n`,
      );
    }
    process.stdout.write(dim(`Keep it green with: taskloom watch ${runId}\n`));
    return EXIT.ok;
  } finally {
    engine.close();
  }
}
