import { GitHubForge, DEFAULT_GITHUB_API, githubToken, slugFromRemoteUrl } from '../forge/github';
import { ForgeError, type Forge, type PullRequest } from '../forge/forge';
import { pullRequestBody, pullRequestTitle, stackedPullRequestBody } from '../report/pullRequestBody';
import type { RunSession } from '../session/runSession';
import { pushBranch, remoteUrl } from '../workspace/pushBranch';
import { applicableHead } from './applyPlan';

export interface PullRequestOptions {
  remote: string;
  /** OWNER/REPO; default: from the remote's URL. */
  repo?: string;
  /** Default: the branch the run started from. */
  base?: string;
  draft: boolean;
  /** One pull request per task, each based on the one before it in merge order (which respects dependencies). */
  stacked: boolean;
  env?: NodeJS.ProcessEnv;
  /** A token the caller has (the editor's GitHub sign-in); otherwise from the environment (see githubToken). */
  token?: string;
  /** The API's base URL (GitHub Enterprise: https://HOST/api/v3); otherwise GITHUB_API_URL, else api.github.com. */
  apiUrl?: string;
}

export interface OpenedPullRequest {
  taskId: string | null;
  pullRequest: PullRequest;
  action: 'opened' | 'updated';
}

/** The forge a run's pull requests go to: GitHub at GITHUB_API_URL, the repository from --repo or the remote. */
export async function forgeFor(root: string, options: Pick<PullRequestOptions, 'remote' | 'repo' | 'env' | 'token' | 'apiUrl'>): Promise<Forge> {
  const env = options.env ?? process.env;
  const url = await remoteUrl(root, options.remote);
  const slug = options.repo ?? (url ? slugFromRemoteUrl(url) : undefined);
  if (!slug) {
    throw new ForgeError(
      url ? `Cannot tell the GitHub repository from ${options.remote}'s URL (${url})` : `There is no remote "${options.remote}"`,
      url ? 'Name the GitHub repository the pull request is for.' : 'Add a remote for the repository on GitHub.',
      'unknown_repository',
      { next: [url ? { kind: 'nameRepository' } : { kind: 'addRemote' }] },
    );
  }
  const apiUrl = options.apiUrl?.trim() || env.GITHUB_API_URL?.trim() || DEFAULT_GITHUB_API;
  return new GitHubForge(slug, options.token || (await githubToken(env)), apiUrl);
}

/**
 * Pushes a completed run and opens its pull request (title from the goal, body from the ledger), or
 * updates the one it has: running it again never opens a second. With `stacked`, one pull request
 * per task instead. Each is recorded in the run's log.
 */
export async function openPullRequests(session: RunSession, options: PullRequestOptions): Promise<OpenedPullRequest[]> {
  const { state } = session;
  const root = state.repoRoot;
  const head = await applicableHead(state, root);
  const base = options.base ?? state.baseRef;
  if (!base || base === 'HEAD') throw new ForgeError('The run started on a detached HEAD, so it has no base branch', 'Name the branch the pull request is for.', 'rejected', { next: [{ kind: 'nameBaseBranch' }] });
  const forge = await forgeFor(root, options);
  const branch = state.integration.branch!;
  const wanted = options.stacked
    ? stackedPullRequests(session, base, forge.slug)
    : [{ taskId: null, commit: head, head: branch, base, title: pullRequestTitle(state), body: pullRequestBody(state, forge.slug) }];
  const opened: OpenedPullRequest[] = [];
  for (const pr of wanted) {
    await pushBranch(root, options.remote, pr.commit, pr.head);
    const existing = await forge.findPullRequest(pr.head);
    const pullRequest =
      existing && existing.state === 'open'
        ? await forge.updatePullRequest(existing.number, { title: pr.title, body: pr.body, base: pr.base })
        : await forge.createPullRequest({ head: pr.head, base: pr.base, title: pr.title, body: pr.body, draft: options.draft });
    const action = existing?.state === 'open' ? 'updated' : 'opened';
    session.emit({ type: 'pull_request', taskId: pr.taskId, number: pullRequest.number, url: pullRequest.url, head: pr.head, base: pr.base, action, repo: forge.slug, remote: options.remote });
    opened.push({ taskId: pr.taskId, pullRequest, action });
  }
  return opened;
}

/** A stack in merge order: each task's merge commit on a branch of its own, based on the previous one's (the first on `base`). */
function stackedPullRequests(session: RunSession, base: string, repo: string) {
  const { state } = session;
  const stacked = state.integration.merged.filter((id) => state.tasks[id]!.mergeCommit);
  let previous = base;
  return stacked.map((id, index) => {
    const task = state.tasks[id]!;
    const head = `taskloom/${state.runId}/stack/${id}`;
    const pr = {
      taskId: id,
      commit: task.mergeCommit!,
      head,
      base: previous,
      title: task.title,
      body: stackedPullRequestBody(state, id, { position: index + 1, count: stacked.length, base: previous }, repo),
    };
    previous = head;
    return pr;
  });
}
