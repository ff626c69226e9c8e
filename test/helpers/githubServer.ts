import { execFileSync } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { mergeInBare } from './githubMerge';
import { listenOnLoopback } from './loopback';

/**
 * A scripted GitHub REST API on 127.0.0.1 for one repository, with GitHub's JSON shapes for the
 * endpoints Taskloom calls (pull requests, check runs and their annotations, commit statuses,
 * reviews, review comments and replies, conversation (issue) comments). Pull request heads are read from a real
 * bare repository (the remote the run pushes to), so checks attach to the commit really pushed.
 * A test scripts CI and reviewers through `onHead` (called for each new head sha) and the setters.
 * Every review and comment carries GitHub's `author_association` and `user.type`; the collaborator
 * permission endpoint answers from `setPermission` (anyone else may read, as on a public repository).
 * Issues (`addIssue`) answer with their comments (the same conversation as a pull request's) and
 * their `labeled` events with who labelled them (`labelIssue` adds one later); the open issues are
 * listed by label; issue comments can be posted and edited.
 * A merge (PUT /pulls/N/merge) really merges in the bare repository, with the methods `mergeMethods`
 * allows, refusing a head that moved (409) or a conflict (405), as GitHub does.
 */

export interface ScriptedCheck {
  name: string;
  conclusion: 'success' | 'failure' | null;
  title?: string;
  summary?: string;
  text?: string;
  annotations?: Array<{ path: string; line: number; message: string }>;
}
export interface ScriptedReview {
  user: string;
  /** GitHub's author_association for the reviewer; default COLLABORATOR. */
  association?: 'OWNER' | 'MEMBER' | 'COLLABORATOR' | 'CONTRIBUTOR' | 'FIRST_TIME_CONTRIBUTOR' | 'NONE';
  /** An app's account (user.type Bot). */
  bot?: boolean;
  state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED';
  body: string;
  comments?: Array<{ path: string; line: number; body: string }>;
}

export interface ScriptedComment {
  user: string;
  /** GitHub's author_association; default COLLABORATOR. */
  association?: ScriptedReview['association'];
  bot?: boolean;
  body: string;
}

export interface ScriptedIssue {
  title: string;
  body: string;
  user: string;
  /** GitHub's author_association for the opener; default COLLABORATOR. */
  association?: ScriptedReview['association'];
  /** Labels put on it, and by whom. */
  labels?: Array<{ label: string; by: string }>;
}

type Permission = 'admin' | 'maintain' | 'write' | 'triage' | 'read';
type Author = { user: string; association: string; bot: boolean };

interface PullState {
  number: number;
  head: string;
  base: string;
  title: string;
  body: string;
  draft: boolean;
  state: 'open' | 'closed';
  merged: boolean;
  /** OWNER/REPO of the head branch when it comes from a fork. */
  fork?: string;
}

export interface GitHubServer {
  url: string;
  token: string;
  pulls: PullState[];
  /** Every request: method, path, and the JSON body. */
  requests: Array<{ method: string; path: string; body: unknown }>;
  /** Replies posted on review comments, and comments on the pull requests. */
  replies: Array<{ commentId: number; body: string }>;
  issueComments: Array<{ number: number; body: string }>;
  /** Opens issue `number`. */
  addIssue(number: number, issue: ScriptedIssue): void;
  /** `by` puts `label` on issue `number`. */
  labelIssue(number: number, label: string, by: string): void;
  /** The comments on issue (or pull request) `number` as they are now, with their authors. */
  commentsOn(number: number): Array<{ id: number; user: string; body: string }>;
  /** Each edit of a comment (PATCH /issues/comments/ID). */
  commentEdits: Array<{ commentId: number; body: string }>;
  /** Called once per new head sha of a pull request: what CI reports on it. */
  onHead(fn: (sha: string, pull: PullState) => ScriptedCheck[]): void;
  /** The repository's allowed merge methods (allow_merge_commit, allow_squash_merge, allow_rebase_merge); default: all. */
  mergeMethods: { merge: boolean; squash: boolean; rebase: boolean };
  /** Each merge GitHub made: the pull request, its method and the merge commit. */
  merges: Array<{ number: number; method: string; commit: string }>;
  addReview(number: number, review: ScriptedReview): void;
  /** A comment in the pull request's conversation (GitHub's issue comment). */
  addComment(number: number, comment: ScriptedComment): void;
  /** What the collaborator permission endpoint says of `user`. */
  setPermission(user: string, permission: Permission): void;
  /** Logins whose permission was asked, in order. */
  permissionLookups: string[];
  /** Answer the next `count` requests with this status (401, 403 with the rate limit used up, 500…). */
  failNext(status: number, count?: number, headers?: Record<string, string>): void;
  close(): Promise<void>;
}

export async function startGitHubServer(options: {
  owner: string;
  repo: string;
  bareRepo: string;
  token?: string;
  /** Wait this long before taking a reply in (so a test can kill its poster in between). */
  replyDelayMs?: number;
}): Promise<GitHubServer> {
  const token = options.token ?? 'ghs_scripted_token_1234567890';
  const slug = `${options.owner}/${options.repo}`;
  const pulls: PullState[] = [];
  const requests: GitHubServer['requests'] = [];
  const replies: GitHubServer['replies'] = [];
  const issueComments: GitHubServer['issueComments'] = [];
  const conversation = new Map<number, Array<Author & { id: number; body: string; created_at: string }>>();
  const converse = (number: number, comment: Author & { body: string }) => {
    const list = conversation.get(number) ?? [];
    const posted = { id: nextId++, ...comment, created_at: new Date().toISOString() };
    list.push(posted);
    conversation.set(number, list);
    return posted;
  };
  const issues = new Map<number, ScriptedIssue>();
  const commentEdits: GitHubServer['commentEdits'] = [];
  const checksBySha = new Map<string, Array<ScriptedCheck & { id: number }>>();
  const reviews = new Map<number, Array<Author & { id: number; state: string; body: string; submitted_at: string }>>();
  const comments = new Map<number, Array<Author & { id: number; pull_request_review_id: number | null; path: string; line: number; body: string; in_reply_to_id?: number }>>();
  const permissions = new Map<string, Permission>();
  const permissionLookups: string[] = [];
  const userJson = (a: Author) => ({ login: a.user, id: 1, type: a.bot ? 'Bot' : 'User' });
  const authored = ({ user, association, bot, ...rest }: Author & Record<string, unknown>) => ({ ...rest, user: userJson({ user, association, bot }), author_association: association });
  let onHead: (sha: string, pull: PullState) => ScriptedCheck[] = () => [];
  let failures: Array<{ status: number; headers: Record<string, string> }> = [];
  let nextId = 1000;
  const mergeMethods = { merge: true, squash: true, rebase: true };
  const merges: GitHubServer['merges'] = [];

  const headSha = (branch: string): string | undefined => {
    try {
      return execFileSync('git', ['--git-dir', options.bareRepo, 'rev-parse', `refs/heads/${branch}`], { encoding: 'utf8' }).trim();
    } catch {
      return undefined;
    }
  };
  // As GitHub computes it: whether the head merges into the base without a conflict.
  const mergeable = (p: PullState): boolean => {
    try {
      execFileSync('git', ['--git-dir', options.bareRepo, 'merge-tree', '--write-tree', `refs/heads/${p.base}`, `refs/heads/${p.head}`], { stdio: 'pipe' });
      return true;
    } catch {
      return false;
    }
  };
  const checksFor = (sha: string, pull: PullState) => {
    if (!checksBySha.has(sha)) checksBySha.set(sha, onHead(sha, pull).map((c) => ({ ...c, id: nextId++ })));
    return checksBySha.get(sha)!;
  };
  const pullJson = (p: PullState) => {
    const sha = headSha(p.head) ?? '0'.repeat(40);
    return {
      number: p.number,
      html_url: `https://github.example/${slug}/pull/${p.number}`,
      state: p.state,
      merged: p.merged,
      draft: p.draft,
      mergeable: mergeable(p),
      title: p.title,
      body: p.body,
      head: { ref: p.head, sha, label: `${(p.fork ?? slug).split('/')[0]}:${p.head}`, repo: { full_name: p.fork ?? slug } },
      base: { ref: p.base, label: `${options.owner}:${p.base}`, repo: { full_name: slug } },
      user: { login: 'taskloom-bot' },
    };
  };

  const server = createServer((req, res) => void handle(req, res));
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    const url = new URL(req.url ?? '/', 'http://localhost');
    requests.push({ method: req.method ?? 'GET', path: `${url.pathname}${url.search}`, body });
    const send = (status: number, json: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(json));
    };
    const failure = failures.shift();
    if (failure) return send(failure.status, { message: failure.status === 401 ? 'Bad credentials' : 'API rate limit exceeded' }, failure.headers);
    if (req.headers.authorization !== `token ${token}`) return send(401, { message: 'Bad credentials' });
    const prefix = `/repos/${slug}`;
    if (url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`)) return send(404, { message: 'Not Found' });
    const path = url.pathname.slice(prefix.length);
    let m: RegExpExecArray | null;
    if (path === '/pulls' && req.method === 'GET') {
      const head = url.searchParams.get('head')?.split(':')[1];
      return send(200, pulls.filter((p) => !head || p.head === head).map(pullJson));
    }
    if (path === '/pulls' && req.method === 'POST') {
      if (!headSha(String(body.head))) return send(422, { message: 'Validation Failed', errors: [{ field: 'head', code: 'invalid' }] });
      if (pulls.some((p) => p.head === body.head && p.state === 'open')) return send(422, { message: `A pull request already exists for ${options.owner}:${String(body.head)}.` });
      const pull: PullState = { number: pulls.length + 1, head: String(body.head), base: String(body.base), title: String(body.title), body: String(body.body ?? ''), draft: body.draft === true, state: 'open', merged: false };
      pulls.push(pull);
      return send(201, pullJson(pull));
    }
    if (path === '' || path === '/') {
      return send(200, { full_name: slug, allow_merge_commit: mergeMethods.merge, allow_squash_merge: mergeMethods.squash, allow_rebase_merge: mergeMethods.rebase });
    }
    if ((m = /^\/pulls\/(\d+)\/merge$/.exec(path)) && req.method === 'PUT') {
      const pull = pulls.find((p) => p.number === Number(m![1]));
      if (!pull || pull.state !== 'open') return send(404, { message: 'Not Found' });
      const method = String(body.merge_method ?? 'merge');
      if ((method !== 'merge' && method !== 'squash') || !mergeMethods[method]) return send(405, { message: `${method} merges are not allowed on this repository.` });
      if (body.sha !== undefined && body.sha !== headSha(pull.head)) return send(409, { message: 'Head branch was modified. Review and try the merge again.' });
      if (!mergeable(pull)) return send(405, { message: 'Pull Request is not mergeable' });
      const commit = mergeInBare(options.bareRepo, pull, method, `Merge pull request #${pull.number} from ${pull.head}`);
      Object.assign(pull, { state: 'closed', merged: true });
      merges.push({ number: pull.number, method, commit });
      return send(200, { sha: commit, merged: true, message: 'Pull Request successfully merged' });
    }
    if ((m = /^\/pulls\/(\d+)$/.exec(path))) {
      const pull = pulls.find((p) => p.number === Number(m![1]));
      if (!pull) return send(404, { message: 'Not Found' });
      if (req.method === 'PATCH') Object.assign(pull, Object.fromEntries(Object.entries(body).filter(([k]) => ['title', 'body', 'base', 'state'].includes(k))));
      return send(200, pullJson(pull));
    }
    if ((m = /^\/commits\/([^/]+)\/check-runs$/.exec(path))) {
      const pull = pulls.find((p) => headSha(p.head) === m![1]);
      const runs = pull ? checksFor(m[1]!, pull) : [];
      return send(200, {
        total_count: runs.length,
        check_runs: runs.map((c) => ({
          id: c.id,
          name: c.name,
          status: c.conclusion === null ? 'in_progress' : 'completed',
          conclusion: c.conclusion,
          html_url: `https://github.example/${slug}/runs/${c.id}`,
          output: { title: c.title ?? null, summary: c.summary ?? null, text: c.text ?? null, annotations_count: c.annotations?.length ?? 0 },
        })),
      });
    }
    if ((m = /^\/check-runs\/(\d+)\/annotations$/.exec(path))) {
      const run = [...checksBySha.values()].flat().find((c) => c.id === Number(m![1]));
      return send(200, (run?.annotations ?? []).map((a) => ({ path: a.path, start_line: a.line, end_line: a.line, annotation_level: 'failure', message: a.message })));
    }
    if ((m = /^\/commits\/([^/]+)\/status$/.exec(path))) return send(200, { state: 'success', statuses: [], sha: m[1] });
    if ((m = /^\/pulls\/(\d+)\/reviews$/.exec(path))) return send(200, (reviews.get(Number(m[1])) ?? []).map(authored));
    if ((m = /^\/pulls\/(\d+)\/comments$/.exec(path))) return send(200, (comments.get(Number(m[1])) ?? []).map((c) => ({ ...authored(c), original_line: c.line })));
    if ((m = /^\/collaborators\/([^/]+)\/permission$/.exec(path))) {
      const user = decodeURIComponent(m[1]!);
      permissionLookups.push(user);
      // As GitHub answers for a public repository: anyone who is not a collaborator may read.
      const role = permissions.get(user) ?? 'read';
      const legacy = role === 'maintain' ? 'write' : role === 'triage' ? 'read' : role;
      return send(200, { permission: legacy, role_name: role, user: { ...userJson({ user, association: 'NONE', bot: false }), permissions: {} } });
    }
    if ((m = /^\/pulls\/(\d+)\/comments\/(\d+)\/replies$/.exec(path)) && req.method === 'POST') {
      if (options.replyDelayMs) await new Promise((resolve) => setTimeout(resolve, options.replyDelayMs));
      if (req.socket.destroyed) return; // the poster was killed meanwhile: the reply never arrived
      const list = comments.get(Number(m[1])) ?? [];
      const reply = { id: nextId++, pull_request_review_id: null, user: 'taskloom-bot', association: 'MEMBER', bot: false, path: '', line: 0, body: String(body.body), in_reply_to_id: Number(m[2]) };
      list.push(reply);
      comments.set(Number(m[1]), list);
      replies.push({ commentId: Number(m[2]), body: String(body.body) });
      return send(201, authored(reply));
    }
    if ((m = /^\/issues\/(\d+)\/comments$/.exec(path)) && req.method === 'POST') {
      issueComments.push({ number: Number(m[1]), body: String(body.body) });
      return send(201, authored(converse(Number(m[1]), { user: 'taskloom-bot', association: 'MEMBER', bot: false, body: String(body.body) })));
    }
    if ((m = /^\/issues\/comments\/(\d+)$/.exec(path)) && req.method === 'PATCH') {
      const comment = [...conversation.values()].flat().find((c) => c.id === Number(m![1]));
      if (!comment) return send(404, { message: 'Not Found' });
      comment.body = String(body.body);
      commentEdits.push({ commentId: comment.id, body: comment.body });
      return send(200, authored(comment));
    }
    if (path === '/issues' && req.method === 'GET') {
      // As GitHub does: pull requests are issues too, marked by pull_request; a label narrows the list.
      const label = url.searchParams.get('labels');
      const open = [
        ...[...issues]
          .filter(([, issue]) => !label || issue.labels?.some((l) => l.label === label))
          .map(([number, issue]) => ({ number, html_url: `https://github.example/${slug}/issues/${number}`, title: issue.title, body: issue.body, state: 'open', ...authored({ user: issue.user, association: issue.association ?? 'COLLABORATOR', bot: false }) })),
        ...(label ? [] : pulls.filter((p) => p.state === 'open').map((p) => ({ number: p.number, html_url: `https://github.example/${slug}/pull/${p.number}`, title: p.title, body: p.body, state: 'open', pull_request: { url: '' }, ...authored({ user: 'taskloom-bot', association: 'MEMBER', bot: false }) }))),
      ];
      const ascending = url.searchParams.get('direction') === 'asc';
      return send(200, open.sort((a, b) => (ascending ? a.number - b.number : b.number - a.number)));
    }
    if ((m = /^\/issues\/(\d+)$/.exec(path))) {
      const number = Number(m[1]);
      const issue = issues.get(number);
      const pull = pulls.find((p) => p.number === number);
      if (pull) return send(200, { number, html_url: `https://github.example/${slug}/pull/${number}`, title: pull.title, body: pull.body, state: pull.state, pull_request: { url: '' }, ...authored({ user: 'taskloom-bot', association: 'MEMBER', bot: false }) });
      if (!issue) return send(404, { message: 'Not Found' });
      return send(200, { number, html_url: `https://github.example/${slug}/issues/${number}`, title: issue.title, body: issue.body, state: 'open', ...authored({ user: issue.user, association: issue.association ?? 'COLLABORATOR', bot: false }) });
    }
    if ((m = /^\/issues\/(\d+)\/events$/.exec(path))) {
      const labels = issues.get(Number(m[1]))?.labels ?? [];
      return send(200, labels.map((l, i) => ({ id: i + 1, event: 'labeled', label: { name: l.label }, actor: userJson({ user: l.by, association: 'NONE', bot: false }), created_at: new Date().toISOString() })));
    }
    if ((m = /^\/issues\/(\d+)\/comments$/.exec(path))) return send(200, (conversation.get(Number(m[1])) ?? []).map(authored));
    return send(404, { message: `Not Found (${req.method} ${path})` });
  }

  const { port, close } = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    pulls,
    requests,
    replies,
    issueComments,
    onHead: (fn) => {
      onHead = fn;
    },
    mergeMethods,
    merges,
    addIssue(number, issue) {
      issues.set(number, issue);
    },
    labelIssue(number, label, by) {
      const issue = issues.get(number)!;
      issue.labels = [...(issue.labels ?? []), { label, by }];
    },
    commentsOn: (number) => (conversation.get(number) ?? []).map((c) => ({ id: c.id, user: c.user, body: c.body })),
    commentEdits,
    addReview(number, review) {
      const id = nextId++;
      const author: Author = { user: review.user, association: review.association ?? 'COLLABORATOR', bot: review.bot === true };
      const list = reviews.get(number) ?? [];
      list.push({ id, ...author, state: review.state, body: review.body, submitted_at: new Date().toISOString() });
      reviews.set(number, list);
      const thread = comments.get(number) ?? [];
      for (const c of review.comments ?? []) thread.push({ id: nextId++, pull_request_review_id: id, ...author, path: c.path, line: c.line, body: c.body });
      comments.set(number, thread);
    },
    addComment(number, comment) {
      converse(number, { user: comment.user, association: comment.association ?? 'COLLABORATOR', bot: comment.bot === true, body: comment.body });
    },
    setPermission(user, permission) {
      permissions.set(user, permission);
    },
    permissionLookups,
    failNext(status, count = 1, headers = {}) {
      failures = [...failures, ...Array.from({ length: count }, () => ({ status, headers }))];
    },
    close,
  };
}
