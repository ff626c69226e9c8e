import type { PullRequestRecord } from '../domain/runState';
import { forgeFor } from '../deliver/pullRequests';
import { watchedPullRequests } from '../deliver/watchPass';
import type { Forge } from '../forge/forge';
import type { RunStore } from '../store/runStore';
import { namedOrNewestRun } from './namedRun';
import { NoPullRequestError } from './useCaseErrors';
import { forgeAccessOf } from '../deliver/issueStatusFollower';

export interface WatchParams {
  /** By default the newest run. */
  runId?: string;
  token?: string;
  apiUrl?: string;
}

/** What keeping a run's pull requests green works on: the pull requests and the forge they are on. */
export interface WatchTarget {
  runId: string;
  pullRequests: PullRequestRecord[];
  forge: Forge;
}

/**
 * The pull requests of the run to keep green and their forge; refused when the run has none. Read
 * only: each door then watches its own way (the CLI in the foreground, between passes it waits; the
 * engine server pass by pass, letting go of the workspace lock in between) with the engine's passes.
 */
export async function watchTarget(store: RunStore, params: WatchParams): Promise<WatchTarget> {
  const runId = namedOrNewestRun(store, params.runId);
  const pullRequests = watchedPullRequests(store.loadRun(runId).state.pullRequests);
  const [first] = pullRequests;
  if (!first) throw new NoPullRequestError(runId);
  const forge = await forgeFor(store.repoRoot, {
    remote: first.remote,
    repo: first.repo,
    ...forgeAccessOf(params),
  });
  return { runId, pullRequests, forge };
}
