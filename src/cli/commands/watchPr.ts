import type { TaskloomEngine } from '../../engine/run/engine';
import { foregroundDoor } from '../../engine/usecases/frontDoor';
import { adoptPullRequest } from '../../engine/usecases/watchPersonalPullRequest';
import { dim, green } from '../format';
import type { RunSettings } from '../../engine/domain/runSettings';
import { FLAG_LABELS, RUN_CONFIG_OPTIONS } from '../runOptions';

/** `watch --pr N`'s flags: the pull request, where it is (as `taskloom pr` takes them), and the run flags its fixes use. */
export const WATCH_PR_OPTIONS = { pr: { type: 'string' }, remote: { type: 'string' }, repo: { type: 'string' }, ...RUN_CONFIG_OPTIONS } as const;

/**
 * `watch --pr N`: takes on a person's own pull request (src/engine/usecases/watchPersonalPullRequest.ts),
 * making its run the first time and finding it again after; says which, and returns the run to watch.
 */
export async function adoptNamedPullRequest(engine: TaskloomEngine, values: Record<string, unknown>, cwd: string, settings: RunSettings, apiUrl?: string): Promise<string> {
  const adopted = await adoptPullRequest(foregroundDoor(engine, FLAG_LABELS), {
    pullRequest: values.pr as string,
    ...(values.remote ? { remote: values.remote as string } : {}),
    ...(values.repo ? { repo: values.repo as string } : {}),
    settings,
    ...(apiUrl ? { apiUrl } : {}),
    baseDir: cwd,
  });
  const { number, head, base } = adopted.pullRequest;
  const how = adopted.reused ? `run ${adopted.runId} keeps it green, as before` : `run ${adopted.runId} made to keep it green`;
  process.stdout.write(`${green(`Pull request #${number}`)} ${dim(`${head} → ${base}`)}: ${how}; fixes are pushed to ${head} only\n`);
  return adopted.runId;
}
