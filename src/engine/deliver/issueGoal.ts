import type { EventOf } from '../domain/events';
import type { Forge } from '../forge/forge';
import { issueGoalText } from '../text/issueWords';
import { isTaskloomIssueStatus } from './issueStatus';
import { visibleCharacters } from '../text/untrustedText';
import { AuthorTrust } from './authorTrust';

/** A run's goal read from an issue, with what the ledger records of where it came from. */
export interface IssueGoal {
  goal: string;
  /** The run_issue event to record once the run exists. */
  record: Omit<EventOf<'run_issue'>, 'type' | 'seq' | 'runId' | 'at' | 'v' | 'confirmedBy'>;
}

/**
 * Reads issue `number` and makes the goal of it: the title and body, and the comments of people
 * with write access (the same trust rules as `watch`'s). The other comments are left out, and
 * recorded as such; whether the issue's own author may be trusted is for the caller to act on
 * (`record.authorTrusted`). Taskloom's own status comments (with the marker, by a trusted author or an app) are neither used nor counted.
 */
export async function readIssueGoal(forge: Forge, number: number, trustedBots: readonly string[] = []): Promise<IssueGoal> {
  const [issue, comments] = await Promise.all([forge.issue(number), forge.issueComments(number)]);
  const trust = new AuthorTrust(forge, trustedBots);
  const author = await trust.standing({ login: issue.author, association: issue.association, bot: issue.bot });
  const used: Array<{ author: string; body: string }> = [];
  const leftOut: IssueGoal['record']['leftOut'] = [];
  for (const comment of comments) {
    const standing = await trust.standing({ login: comment.author, association: comment.association, bot: comment.bot });
    if ((standing.trusted || comment.bot) && isTaskloomIssueStatus(comment.body)) continue;
    if (standing.trusted) used.push({ author: visibleCharacters(comment.author), body: comment.body });
    else leftOut.push({ id: comment.id, author: visibleCharacters(comment.author), why: standing.why, association: visibleCharacters(standing.association) });
  }
  const goal = issueGoalText({ repo: forge.slug, number, title: issue.title, author: visibleCharacters(issue.author), body: issue.body, comments: used });
  return {
    goal,
    record: {
      repo: forge.slug,
      number,
      url: issue.url,
      title: visibleCharacters(issue.title),
      author: visibleCharacters(issue.author),
      authorTrusted: author.trusted,
      usedComments: used.map((c) => c.author),
      leftOut,
    },
  };
}
