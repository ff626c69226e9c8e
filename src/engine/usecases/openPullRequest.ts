import { openPullRequests, type OpenedPullRequest } from '../deliver/pullRequests';
import { assertNotBusy } from './busyRuns';
import type { FrontDoor } from './frontDoor';
import { namedOrNewestRun } from './namedRun';
import { forgeAccessOf } from '../deliver/issueStatusFollower';

export interface OpenPullRequestParams {
  /** By default the newest run. */
  runId?: string;
  /** The remote the branches are pushed to; default `origin`. */
  remote?: string;
  /** OWNER/REPO; by default from the remote's URL. */
  repo?: string;
  /** By default the branch the run started from. */
  base?: string;
  draft?: boolean;
  /** One pull request per task, each based on the one before it, instead of one for the run. */
  stacked?: boolean;
  /** A token the caller has (the editor's GitHub sign-in); otherwise from the environment. */
  token?: string;
  /** GitHub Enterprise's API; otherwise GITHUB_API_URL, else api.github.com. */
  apiUrl?: string;
}

export interface OpenedRunPullRequests {
  runId: string;
  opened: OpenedPullRequest[];
}

/**
 * Pushes a completed run and opens its pull request (or updates the one it has), or one per task
 * when stacked; a run started from an issue then says so in the status comment (the
 * engine's, reached with this call's token and API).
 */
export async function openPullRequest(door: FrontDoor, params: OpenPullRequestParams): Promise<OpenedRunPullRequests> {
  const runId = namedOrNewestRun(door.engine.store, params.runId);
  assertNotBusy(door, runId);
  door.engine.reachForgeWith(forgeAccessOf(params));
  const opened = await openPullRequests(door.session(runId), {
    remote: params.remote ?? 'origin',
    draft: params.draft === true,
    stacked: params.stacked === true,
    ...(params.repo ? { repo: params.repo } : {}),
    ...(params.base ? { base: params.base } : {}),
    ...forgeAccessOf(params),
  });
  return { runId, opened };
}
