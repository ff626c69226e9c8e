import type { MergeMethod } from '../domain/events';
import type { NextStep } from '../domain/nextStep';
import { TaskloomError } from '../domain/taskloomError';

/**
 * One small interface for where pull requests live (GitHub behind it; GitLab can follow): what
 * `taskloom pr` and `taskloom watch` need, in the forge's own terms turned into plain records.
 */
export interface PullRequest {
  number: number;
  url: string;
  head: string;
  base: string;
  headSha: string;
  state: 'open' | 'closed' | 'merged';
  draft: boolean;
  /** null while the forge has not computed it yet. */
  mergeable: boolean | null;
  /** `owner/repo` the head branch lives in (null: its fork was deleted); another than the base's for a pull request from a fork. */
  headRepo: string | null;
  fromFork: boolean;
}

export interface CheckAnnotation {
  path: string;
  line: number;
  level: string;
  message: string;
}

/** A CI check run or a commit status on the pull request's head. */
export interface CheckResult {
  /** Stable across polls: the check run's or status's id. */
  id: string;
  name: string;
  status: 'pending' | 'success' | 'failure';
  /** What the check printed (title, summary, text) and its annotations, for the agent that fixes it. */
  output: string;
  annotations: CheckAnnotation[];
  url?: string;
  /** Set when its output and annotations are withheld from agents (see deliver/screenForgeInput.ts): they came from a fork's run. */
  withheld?: 'fork';
}

/**
 * How the forge relates an author to the repository, in GitHub's words (`author_association`):
 * OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, FIRST_TIME_CONTRIBUTOR, FIRST_TIMER, MANNEQUIN, NONE.
 */
export type AuthorAssociation = string;

/** What an author may do in the repository, from the forge's collaborator permission ('none': nothing, or not a collaborator). */
export type RepositoryPermission = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

export interface Review {
  id: string;
  author: string;
  association: AuthorAssociation;
  /** An app or bot account, not a person. */
  bot: boolean;
  state: 'approved' | 'changes_requested' | 'commented' | 'dismissed' | 'pending';
  body: string;
  submittedAt: string;
}

export interface ReviewComment {
  id: string;
  reviewId: string | null;
  author: string;
  association: AuthorAssociation;
  bot: boolean;
  path: string;
  line: number | null;
  body: string;
  /** The comment this one replies to (a thread's first comment has none). */
  inReplyTo: string | null;
}

/** A comment in the pull request's conversation (GitHub's issue comments), not on a line of code. */
export interface ConversationComment {
  id: string;
  author: string;
  association: AuthorAssociation;
  bot: boolean;
  body: string;
  createdAt: string;
}

/** Everything the observer looks at, read in one poll. */
export interface PullRequestStatus {
  pullRequest: PullRequest;
  checks: CheckResult[];
  reviews: Review[];
  comments: ReviewComment[];
  conversation: ConversationComment[];
}

/** An issue on the forge (`taskloom run --issue`): who opened it and what it says. */
export interface Issue {
  number: number;
  url: string;
  title: string;
  body: string;
  author: string;
  association: AuthorAssociation;
  bot: boolean;
  state: 'open' | 'closed';
}

/** Someone put a label on an issue (the issue's `labeled` events). */
export interface IssueLabeling {
  label: string;
  actor: string;
  at: string;
}

export interface PullRequestDraft {
  head: string;
  base: string;
  title: string;
  body: string;
  draft: boolean;
}

export interface Forge {
  /** `owner/repo` on the forge. */
  readonly slug: string;
  /** The open (or last) pull request from `head`, if any. */
  findPullRequest(head: string): Promise<PullRequest | undefined>;
  /** Pull request `number` as it is now. */
  pullRequest(number: number): Promise<PullRequest>;
  createPullRequest(draft: PullRequestDraft): Promise<PullRequest>;
  updatePullRequest(number: number, changes: { title: string; body: string; base: string }): Promise<PullRequest>;
  status(number: number): Promise<PullRequestStatus>;
  replyToComment(number: number, commentId: string, body: string): Promise<void>;
  comment(number: number, body: string): Promise<void>;
  /** Issue `number`; a ForgeError (not_found) when there is none, or it is a pull request. */
  issue(number: number): Promise<Issue>;
  /** The repository's open issues (not pull requests), newest first, at most `limit`. */
  openIssues(limit: number): Promise<Issue[]>;
  /** The comments on issue (or pull request) `number`, oldest first. */
  issueComments(number: number): Promise<ConversationComment[]>;
  /** The open issues (not pull requests) labelled `label`, oldest first. */
  openIssuesLabelled(label: string): Promise<Issue[]>;
  /** Who labelled issue `number` with what, oldest first. */
  issueLabelings(number: number): Promise<IssueLabeling[]>;
  /** Posts a comment on issue `number`; its id. */
  createIssueComment(number: number, body: string): Promise<string>;
  editIssueComment(commentId: string, body: string): Promise<void>;
  /** What `login` may do in the repository (the collaborator permission; 'none' for someone who is not one). */
  permission(login: string): Promise<RepositoryPermission>;
  /** The ways the repository lets pull requests be merged, in the forge's order of preference. */
  mergeMethods(): Promise<MergeMethod[]>;
  /** Merges the pull request if its head is still `sha`; refused (not merged, with the forge's words) when it moved or cannot merge. */
  merge(number: number, sha: string, method: MergeMethod): Promise<MergeResult>;
}

export type MergeResult = { merged: true; commit: string } | { merged: false; reason: string };

/** Why a forge refused: `credentials` when there is no token or the forge rejected it (signing in again helps). */
export type ForgeFailure = 'credentials' | 'permission' | 'rate_limit' | 'not_found' | 'rejected' | 'unreachable' | 'unknown_repository';

/** A forge refused or failed: what happened, and what the user can do about it. */
export class ForgeError extends TaskloomError {
  override readonly name = 'ForgeError';
  declare readonly hint: string;
  constructor(
    message: string,
    hint: string,
    readonly failure: ForgeFailure,
    options?: { cause?: unknown; next?: readonly NextStep[] },
  ) {
    super('needs_environment', message, hint, options);
  }
}
