import type { PullRequestRecord } from '../domain/runState';
import type { PullRequestStatus } from '../forge/forge';
import type { WatchContext } from './pullRequestReaction';
import { latestDecisiveReviews } from './watchDecision';

/** Why a green pull request is not merged, or the people whose approvals would merge it. */
export type MergeCandidate = { ready: true; approvers: string[] } | { ready: false; why: string };

/**
 * Whether `watch --auto-merge` may merge a pull request, from its screened status (reviews only by
 * people with write access and trusted bots): open, not a draft, mergeable, every check passing,
 * no latest review requesting changes, approved by a person (a bot's approval merges nothing), and
 * not based on another open pull request of the stack (a stack merges from the bottom). Pure.
 */
export function mergeCandidate(status: PullRequestStatus, basedOnOpenPullRequest: boolean): MergeCandidate {
  const pr = status.pullRequest;
  if (pr.state !== 'open' || pr.draft) return { ready: false, why: pr.draft ? 'it is a draft' : `it is ${pr.state}` };
  if (pr.mergeable !== true) return { ready: false, why: pr.mergeable === false ? `it conflicts with ${pr.base}` : 'the forge has not said whether it merges cleanly yet' };
  if (status.checks.some((c) => c.status !== 'success')) return { ready: false, why: 'not every check passes' };
  if (basedOnOpenPullRequest) return { ready: false, why: `it is based on ${pr.base}, whose pull request is not merged yet` };
  const latest = latestDecisiveReviews(status.reviews);
  const requesting = latest.filter((r) => r.state === 'changes_requested').map((r) => r.author);
  if (requesting.length) return { ready: false, why: `${requesting.join(', ')} requested changes` };
  const approvers = latest.filter((r) => r.state === 'approved' && !r.bot).map((r) => r.author);
  return approvers.length ? { ready: true, approvers } : { ready: false, why: 'nobody with write access approved it' };
}

/**
 * Merges a green pull request whose approvers have write access (asked of the forge, whatever their
 * association says), with the first merge method the repository allows, at the head `watch` saw:
 * GitHub refuses it if the head moved meanwhile. Answers why it did not merge, or undefined once merged.
 */
export async function autoMerge(ctx: WatchContext, pr: PullRequestRecord, status: PullRequestStatus, basedOnOpenPullRequest: boolean): Promise<string | undefined> {
  const candidate = mergeCandidate(status, basedOnOpenPullRequest);
  if (!candidate.ready) return `not merging: ${candidate.why}`;
  const writers: string[] = [];
  for (const login of candidate.approvers) if (await ctx.trust.mayWrite(login)) writers.push(login);
  if (!writers.length) return `not merging: ${candidate.approvers.join(', ')} cannot write to the repository`;
  const [method] = await ctx.forge.mergeMethods();
  if (!method) return 'not merging: the repository allows no merge method';
  const headSha = status.pullRequest.headSha;
  const result = await ctx.forge.merge(pr.number, headSha, method);
  if (!result.merged) return `the forge did not merge it: ${result.reason}`;
  ctx.session.emit({ type: 'pull_request_merged_by_taskloom', number: pr.number, headSha, method, commit: result.commit, approvedBy: writers });
  return undefined;
}
