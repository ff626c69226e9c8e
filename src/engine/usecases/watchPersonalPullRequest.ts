import type { ExtraRunSettings, RunSettings } from '../domain/runSettings';
import type { RunState } from '../domain/runState';
import { forgeFor } from '../deliver/pullRequests';
import type { PullRequest } from '../forge/forge';
import { assertAgentsInstalled } from '../run/assertAgentInstalled';
import { runConfigFromSettings } from '../run/runConfigFromSettings';
import type { FrontDoor } from './frontDoor';
import { PullRequestNotWatchableError } from './useCaseErrors';
import { forgeAccessOf } from '../deliver/issueStatusFollower';

export interface AdoptPullRequestParams {
  /** The pull request: its number (`12`, `#12`) or its URL (`https://github.com/OWNER/REPO/pull/12`). */
  pullRequest: string;
  /** The remote its branch is fetched from and fixes are pushed to; default `origin`. */
  remote?: string;
  /** OWNER/REPO; by default from the URL given, else from the remote's URL. */
  repo?: string;
  token?: string;
  apiUrl?: string;
  /** The agents, gate and limits its fixes use (the editor's settings, the CLI's flags), for a run made now. */
  settings: RunSettings & ExtraRunSettings;
  baseDir: string;
}

export interface AdoptedPullRequest {
  runId: string;
  pullRequest: PullRequest;
  /** The run already kept this pull request green: it is used again, not made twice. */
  reused: boolean;
}

/**
 * Takes on a person's own pull request (one Taskloom did not open) to keep green: a run with no
 * tasks whose pull request it is, so `watch` fixes its failing checks and what reviewers ask for as
 * it does a run's own, in a worktree of its head, pushing only to its head branch. Refused for a
 * pull request from a fork (its branch is not this repository's to push to, and its CI output was
 * written by the fork's code) and for a closed or merged one. Asked again, the run made the first
 * time is used (and for a pull request a run opened, that run).
 */
export async function adoptPullRequest(door: FrontDoor, params: AdoptPullRequestParams): Promise<AdoptedPullRequest> {
  const { engine } = door;
  const { number, repo: repoInUrl } = pullRequestReference(params.pullRequest);
  const remote = params.remote ?? 'origin';
  const repo = params.repo ?? repoInUrl;
  const forge = await forgeFor(engine.repo.root, { remote, ...(repo ? { repo } : {}), ...forgeAccessOf(params) });
  const pullRequest = await forge.pullRequest(number);
  if (pullRequest.fromFork) {
    throw new PullRequestNotWatchableError(
      `Pull request #${number} comes from a fork (${pullRequest.headRepo ?? 'since deleted'}), not from ${forge.slug}`,
      "Taskloom pushes fixes only to a branch of the repository it works in, and what a fork's CI prints is its own code's words, not something to hand an agent. Check out the branch yourself, or ask its author to push it to this repository.",
    );
  }
  if (pullRequest.state !== 'open') {
    throw new PullRequestNotWatchableError(`Pull request #${number} is ${pullRequest.state}: there is nothing to keep green`, 'Reopen it on the forge first, or name an open one.');
  }
  const known = engine.store.listRuns().find((entry) => hasPullRequest(engine.store.loadRun(entry.runId).state, forge.slug, number));
  if (known) return { runId: known.runId, pullRequest, reused: true };

  const config = runConfigFromSettings(params.settings, { baseDir: params.baseDir, repoRoot: engine.repo.root, labels: door.settingNames });
  assertAgentsInstalled(config, undefined, door.settingNames);
  const goal = `Keep pull request #${number} green (${pullRequest.head})`;
  const session = door.createRun({ goal, tasks: [] }, config, goal);
  session.emit({ type: 'pull_request', taskId: null, number, url: pullRequest.url, head: pullRequest.head, base: pullRequest.base, action: 'adopted', repo: forge.slug, remote });
  // Nothing is planned or built for it: the run is complete as soon as it is made, and watches from then on.
  session.emit({ type: 'run_finished', status: 'completed', summary: `keeps pull request #${number} (${pullRequest.head}) green` });
  return { runId: session.runId, pullRequest, reused: false };
}

/** The number, and the repository when a URL names one, of a pull request as a person gives it. */
export function pullRequestReference(text: string): { number: number; repo?: string } {
  const trimmed = text.trim();
  const bare = /^#?(\d+)$/.exec(trimmed);
  if (bare) return { number: Number(bare[1]) };
  const url = /^https?:\/\/[^/]+\/([^/]+)\/([^/]+)\/pull\/(\d+)(?:[/?#].*)?$/.exec(trimmed);
  if (url) return { number: Number(url[3]), repo: `${url[1]}/${url[2]}` };
  throw new PullRequestNotWatchableError(`"${text}" is not a pull request number or URL`, 'Give its number (12) or its address (https://github.com/OWNER/REPO/pull/12).');
}

/** The run made for this pull request, or the run that opened it: either keeps it green, no second one. */
const hasPullRequest = (state: RunState, slug: string, number: number): boolean =>
  Object.values(state.pullRequests).some((pr) => pr.number === number && pr.repo.toLowerCase() === slug.toLowerCase());
