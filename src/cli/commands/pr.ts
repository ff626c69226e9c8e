import { TaskloomEngine } from '../../engine/run/engine';
import { foregroundDoor } from '../../engine/usecases/frontDoor';
import { openPullRequest } from '../../engine/usecases/openPullRequest';
import { EXIT } from '../cliErrors';
import { bold, dim, green } from '../format';
import { parseCommandArgs } from '../parseCommandArgs';
import { ALLOW_CONFIG_OPTION, commandSettings } from '../commandSettings';
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
    ...ALLOW_CONFIG_OPTION,
  });
  const engine = await TaskloomEngine.open(cwd, { command: 'taskloom pr' });
  try {
    // GITHUB_API_URL (or TASKLOOM_GITHUB_API_URL), else taskloom.json's github.apiUrl once allowed: the token goes there.
    const settings = await commandSettings(engine.repo.root, {}, { allowConfig: values['allow-config'] === true, onWithheld: 'ask', reads: ['github.apiUrl'] });
    if (!settings) return EXIT.needsHuman;
    const apiUrl = settings.values['github.apiUrl'] as string | undefined;
    const { runId, opened } = await openPullRequest(foregroundDoor(engine, FLAG_LABELS), {
      ...(apiUrl ? { apiUrl } : {}),
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
    await engine.drainNotifications();
    engine.close();
  }
}
