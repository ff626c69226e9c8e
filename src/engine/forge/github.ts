// `gh auth token` runs on the user's behalf, for the user's own credential, never for a task: not through the sandbox.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Octokit } from '@octokit/rest';
import type { MergeMethod } from '../domain/events';
import { findOnPath } from '../process/findOnPath';
import {
  ForgeError,
  type CheckResult,
  type ConversationComment,
  type Forge,
  type Issue,
  type IssueLabeling,
  type MergeResult,
  type PullRequest,
  type PullRequestDraft,
  type PullRequestStatus,
  type RepositoryPermission,
  type Review,
  type ReviewComment,
} from './forge';

export const DEFAULT_GITHUB_API = 'https://api.github.com';

/** Where the token comes from: GITHUB_TOKEN, else GH_TOKEN, else the GitHub CLI's login (`gh auth token`). */
export async function githubToken(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const fromEnv = env.GITHUB_TOKEN?.trim() || env.GH_TOKEN?.trim();
  if (fromEnv) return fromEnv;
  const gh = findOnPath('gh', env.PATH ?? '');
  if (gh) {
    const token = await promisify(execFile)(gh, ['auth', 'token'], { env, timeout: 10_000 }).then(
      (r) => r.stdout.trim(),
      () => '',
    );
    if (token) return token;
  }
  throw new ForgeError(
    'No GitHub token: GITHUB_TOKEN and GH_TOKEN are not set and the GitHub CLI has no login',
    'Set GITHUB_TOKEN (a token that can push and open pull requests), or log in with: gh auth login',
    'credentials',
  );
}

/** `owner/repo` from a remote's URL: https://host/owner/repo(.git), git@host:owner/repo(.git), ssh://git@host/owner/repo(.git). */
export function slugFromRemoteUrl(url: string): string | undefined {
  const match = /^(?:https?:\/\/[^/]+\/|ssh:\/\/[^/]+\/|[^@/]+@[^:/]+:)([^/]+)\/([^/]+?)(?:\.git)?\/?$/.exec(url.trim());
  return match ? `${match[1]}/${match[2]}` : undefined;
}

type ApiError = Error & { status?: number; response?: { headers?: Record<string, string | undefined>; data?: { message?: string } } };

/**
 * GitHub through its REST API (Octokit); `GITHUB_API_URL` points it at GitHub Enterprise or
 * another server. Every failure becomes a ForgeError that says what to do.
 */
export class GitHubForge implements Forge {
  private readonly octokit: Octokit;
  private readonly owner: string;
  private readonly repo: string;

  constructor(
    readonly slug: string,
    token: string,
    readonly apiUrl = DEFAULT_GITHUB_API,
  ) {
    const [owner, repo] = slug.split('/');
    if (!owner || !repo) throw new ForgeError(`Not a GitHub repository name: "${slug}"`, 'Give it as OWNER/REPO, e.g. octo-org/widgets.', 'unknown_repository');
    this.owner = owner;
    this.repo = repo;
    this.octokit = new Octokit({ auth: token, baseUrl: apiUrl.replace(/\/+$/, ''), userAgent: 'taskloom', request: { retries: 0 } });
  }

  async findPullRequest(head: string): Promise<PullRequest | undefined> {
    const { data } = await this.call(() => this.octokit.pulls.list({ owner: this.owner, repo: this.repo, head: `${this.owner}:${head}`, state: 'all', per_page: 10 }));
    const open = data.find((p) => p.state === 'open') ?? data[0];
    return open ? this.pullRequest(open.number) : undefined;
  }

  async createPullRequest(draft: PullRequestDraft): Promise<PullRequest> {
    const { data } = await this.call(() => this.octokit.pulls.create({ owner: this.owner, repo: this.repo, ...draft }));
    return this.pullRequest(data.number);
  }

  async updatePullRequest(number: number, changes: { title: string; body: string; base: string }): Promise<PullRequest> {
    await this.call(() => this.octokit.pulls.update({ owner: this.owner, repo: this.repo, pull_number: number, ...changes }));
    return this.pullRequest(number);
  }

  async status(number: number): Promise<PullRequestStatus> {
    const pullRequest = await this.pullRequest(number);
    const ref = pullRequest.headSha;
    const [runs, combined, reviews, comments, conversation] = await Promise.all([
      this.call(() => this.octokit.checks.listForRef({ owner: this.owner, repo: this.repo, ref, per_page: 100 })),
      this.call(() => this.octokit.repos.getCombinedStatusForRef({ owner: this.owner, repo: this.repo, ref, per_page: 100 })),
      this.call(() => this.octokit.pulls.listReviews({ owner: this.owner, repo: this.repo, pull_number: number, per_page: 100 })),
      this.call(() => this.octokit.pulls.listReviewComments({ owner: this.owner, repo: this.repo, pull_number: number, per_page: 100 })),
      this.call(() => this.octokit.issues.listComments({ owner: this.owner, repo: this.repo, issue_number: number, per_page: 100 })),
    ]);
    const checks: CheckResult[] = [];
    for (const run of runs.data.check_runs) {
      const failed = run.status === 'completed' && !['success', 'neutral', 'skipped'].includes(run.conclusion ?? '');
      const annotations = failed
        ? (await this.call(() => this.octokit.checks.listAnnotations({ owner: this.owner, repo: this.repo, check_run_id: run.id }))).data.map((a) => ({
            path: a.path,
            line: a.start_line,
            level: a.annotation_level ?? 'failure',
            message: a.message ?? '',
          }))
        : [];
      checks.push({
        id: `check-${run.id}`,
        name: run.name,
        status: run.status !== 'completed' ? 'pending' : failed ? 'failure' : 'success',
        output: [run.output?.title, run.output?.summary, run.output?.text].filter(Boolean).join('\n\n'),
        annotations,
        ...(run.html_url ? { url: run.html_url } : {}),
      });
    }
    for (const s of combined.data.statuses) {
      checks.push({
        id: `status-${s.id}`,
        name: s.context,
        status: s.state === 'success' ? 'success' : s.state === 'pending' ? 'pending' : 'failure',
        output: s.description ?? '',
        annotations: [],
        ...(s.target_url ? { url: s.target_url } : {}),
      });
    }
    return {
      pullRequest,
      checks,
      reviews: reviews.data.map(
        (r): Review => ({
          id: String(r.id),
          author: r.user?.login ?? 'someone',
          association: r.author_association,
          bot: isBot(r.user),
          state: reviewState(r.state),
          body: r.body ?? '',
          submittedAt: r.submitted_at ?? '',
        }),
      ),
      comments: comments.data.map(
        (c): ReviewComment => ({
          id: String(c.id),
          reviewId: c.pull_request_review_id ? String(c.pull_request_review_id) : null,
          author: c.user?.login ?? 'someone',
          association: c.author_association,
          bot: isBot(c.user),
          path: c.path,
          line: c.line ?? c.original_line ?? null,
          body: c.body,
          inReplyTo: c.in_reply_to_id ? String(c.in_reply_to_id) : null,
        }),
      ),
      conversation: conversation.data.map(conversationComment),
    };
  }

  async replyToComment(number: number, commentId: string, body: string): Promise<void> {
    await this.call(() =>
      this.octokit.pulls.createReplyForReviewComment({ owner: this.owner, repo: this.repo, pull_number: number, comment_id: Number(commentId), body }),
    );
  }

  async comment(number: number, body: string): Promise<void> {
    await this.call(() => this.octokit.issues.createComment({ owner: this.owner, repo: this.repo, issue_number: number, body }));
  }

  async openIssues(limit: number): Promise<Issue[]> {
    // GitHub lists pull requests among issues: asked for a page more than wanted, those are dropped.
    const { data } = await this.call(() => this.octokit.issues.listForRepo({ owner: this.owner, repo: this.repo, state: 'open', sort: 'created', direction: 'desc', per_page: Math.min(100, limit * 2) }));
    return data.filter((item) => !item.pull_request).slice(0, limit).map(issueOf);
  }

  async issue(number: number): Promise<Issue> {
    const missing = new ForgeError(`${this.slug} has no issue #${number}`, 'Check the issue number (a pull request is not an issue).', 'not_found');
    const { data } = await this.call(() => this.octokit.issues.get({ owner: this.owner, repo: this.repo, issue_number: number })).catch((error: unknown) => {
      throw error instanceof ForgeError && error.failure === 'not_found' ? missing : error;
    });
    if (data.pull_request) throw missing;
    return issueOf(data);
  }

  async openIssuesLabelled(label: string): Promise<Issue[]> {
    const listed = await this.call(() =>
      this.octokit.paginate(this.octokit.issues.listForRepo, { owner: this.owner, repo: this.repo, labels: label, state: 'open', sort: 'created', direction: 'asc', per_page: 100 }),
    );
    // GitHub lists pull requests among the issues.
    return listed.filter((data) => !data.pull_request).map((data) => issueOf(data));
  }

  async issueComments(number: number): Promise<ConversationComment[]> {
    const comments = await this.call(() => this.octokit.paginate(this.octokit.issues.listComments, { owner: this.owner, repo: this.repo, issue_number: number, per_page: 100 }));
    return comments.map(conversationComment);
  }

  async issueLabelings(number: number): Promise<IssueLabeling[]> {
    const events = await this.call(() => this.octokit.paginate(this.octokit.issues.listEvents, { owner: this.owner, repo: this.repo, issue_number: number, per_page: 100 }));
    return events.flatMap((e) => {
      const label = (e as { label?: { name?: string } }).label?.name;
      return e.event === 'labeled' && label && e.actor ? [{ label, actor: e.actor.login, at: e.created_at }] : [];
    });
  }

  async createIssueComment(number: number, body: string): Promise<string> {
    const { data } = await this.call(() => this.octokit.issues.createComment({ owner: this.owner, repo: this.repo, issue_number: number, body }));
    return String(data.id);
  }

  async editIssueComment(commentId: string, body: string): Promise<void> {
    await this.call(() => this.octokit.issues.updateComment({ owner: this.owner, repo: this.repo, comment_id: Number(commentId), body }));
  }

  async permission(login: string): Promise<RepositoryPermission> {
    try {
      const { data } = await this.call(() => this.octokit.repos.getCollaboratorPermissionLevel({ owner: this.owner, repo: this.repo, username: login }));
      // role_name tells maintain and triage apart; the older permission field only admin, write, read, none.
      const role = (data as { role_name?: string }).role_name ?? data.permission;
      return (['admin', 'maintain', 'write', 'triage', 'read'] as const).find((p) => p === role) ?? 'none';
    } catch (error) {
      // Not a collaborator, no such user, or a token that may not read permissions: no access is known.
      if (error instanceof ForgeError && (error.failure === 'not_found' || error.failure === 'permission')) return 'none';
      throw error;
    }
  }

  async mergeMethods(): Promise<MergeMethod[]> {
    const { data } = await this.call(() => this.octokit.repos.get({ owner: this.owner, repo: this.repo }));
    // GitHub leaves the flags out for a token that may not administer the repository: then it allows each until it says otherwise.
    const allowed = { merge: data.allow_merge_commit, squash: data.allow_squash_merge, rebase: data.allow_rebase_merge };
    return (['merge', 'squash', 'rebase'] as const).filter((method) => allowed[method] !== false);
  }

  async merge(number: number, sha: string, method: MergeMethod): Promise<MergeResult> {
    try {
      const { data } = await this.octokit.pulls.merge({ owner: this.owner, repo: this.repo, pull_number: number, sha, merge_method: method });
      return { merged: true, commit: data.sha };
    } catch (error) {
      const e = error as ApiError;
      // 405: not mergeable (or the method is not allowed); 409: the head is no longer `sha`.
      if (e.status === 405 || e.status === 409) return { merged: false, reason: e.response?.data?.message ?? e.message };
      throw this.explain(e);
    }
  }

  async pullRequest(number: number): Promise<PullRequest> {
    const { data } = await this.call(() => this.octokit.pulls.get({ owner: this.owner, repo: this.repo, pull_number: number }));
    return {
      number: data.number,
      url: data.html_url,
      head: data.head.ref,
      base: data.base.ref,
      headSha: data.head.sha,
      state: data.merged ? 'merged' : data.state === 'open' ? 'open' : 'closed',
      draft: data.draft ?? false,
      mergeable: data.mergeable ?? null,
      headRepo: data.head.repo?.full_name ?? null,
      fromFork: data.head.repo?.full_name?.toLowerCase() !== (data.base.repo?.full_name ?? this.slug).toLowerCase(),
    };
  }

  /** The call, with GitHub's refusals turned into what the user can do about them. */
  private async call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw this.explain(error as ApiError);
    }
  }

  private explain(error: ApiError): ForgeError {
    const where = `${this.slug} on ${this.apiUrl}`;
    const said = error.response?.data?.message ?? error.message;
    const headers = error.response?.headers ?? {};
    switch (error.status) {
      case 401:
        return new ForgeError(`GitHub refused the token (401: ${said})`, 'Check the token (GITHUB_TOKEN, GH_TOKEN, or the GitHub CLI\'s login): it may be expired or revoked.', 'credentials', { cause: error });
      case 403:
      case 429:
        if (headers['x-ratelimit-remaining'] === '0' || error.status === 429) {
          const reset = Number(headers['x-ratelimit-reset']);
          const when = Number.isFinite(reset) && reset > 0 ? ` until ${new Date(reset * 1000).toISOString()}` : '';
          return new ForgeError(`GitHub's rate limit is used up${when}`, 'Wait for it to reset, then try again; nothing was lost.', 'rate_limit', { cause: error });
        }
        return new ForgeError(`GitHub refused the request on ${where} (403: ${said})`, 'The token needs the repo scope (contents and pull requests: write).', 'permission', { cause: error });
      case 404:
        return new ForgeError(`GitHub has no repository ${where}, or the token cannot see it`, 'Check the repository it names (from the remote\'s URL) and that the token has access to it.', 'not_found', { cause: error, next: [{ kind: 'nameRepository' }] });
      case 422:
        return new ForgeError(`GitHub rejected the pull request on ${where}: ${said}`, 'Check that the base branch exists on GitHub and differs from the run branch.', 'rejected', { cause: error });
      default:
        return new ForgeError(`GitHub request failed on ${where}: ${said}`, 'Check the network and GITHUB_API_URL, then try again.', 'unreachable', { cause: error });
    }
  }
}

function issueOf(data: { number: number; html_url: string; title: string; body?: string | null; user: { login: string; type?: string } | null; author_association?: string; state: string }): Issue {
  return {
    number: data.number,
    url: data.html_url,
    title: data.title,
    body: data.body ?? '',
    author: data.user?.login ?? 'someone',
    association: data.author_association ?? 'NONE',
    bot: isBot(data.user),
    state: data.state === 'closed' ? 'closed' : 'open',
  };
}

function conversationComment(c: { id: number; user: { login: string; type?: string } | null; author_association: string; body?: string; created_at: string }): ConversationComment {
  return { id: String(c.id), author: c.user?.login ?? 'someone', association: c.author_association, bot: isBot(c.user), body: c.body ?? '', createdAt: c.created_at };
}

/** GitHub marks apps' accounts (`dependabot[bot]`) as type Bot. */
const isBot = (user: { type?: string; login?: string } | null | undefined): boolean => user?.type === 'Bot' || (user?.login ?? '').endsWith('[bot]');

function reviewState(state: string): Review['state'] {
  switch (state.toUpperCase()) {
    case 'APPROVED':
      return 'approved';
    case 'CHANGES_REQUESTED':
      return 'changes_requested';
    case 'DISMISSED':
      return 'dismissed';
    case 'PENDING':
      return 'pending';
    default:
      return 'commented';
  }
}
