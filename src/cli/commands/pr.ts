import { TaskloomEngine } from '../../engine/run/engine';
import { foregroundDoor } from '../../engine/usecases/frontDoor';
import { openPullRequest } from '../../engine/usecases/openPullRequest';
import { EXIT } from '../cliErrors';
import { bold, dim, green } from '../format';
import { parseCommandArgs } from '../parseCommandArgs';
import { FLAG_LABELS } from '../runOptions';

/**
 * `taskloom pr`: pushes a completed run's integration branch and opens its GitHub pull request
 * (or updates the one it has), printing its URL; `--stacked` opens one per task instead
 * (src/engine/usecases/openPullRequest.ts).
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
    const { runId, opened } = await openPullRequest(foregroundDoor(engine, FLAG_LABELS), {
      runId: positionals[0],
      remote: values.remote as string | undefined,
      repo: values.repo as string | undefined,
      base: values.base as string | undefined,
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
