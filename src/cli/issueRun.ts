import type { FrontDoor } from '../engine/usecases/frontDoor';
import { readIssue, startRunFromIssue, type StartFromIssueParams } from '../engine/usecases/startRunFromIssue';
import type { StartedRun } from '../engine/usecases/startRun';
import { leftOutWords } from '../engine/text/issueWords';
import { askYesNo } from './askYesNo';
import { bold, dim, yellow } from './format';

export interface IssueRunFlags {
  issue: string;
  /** `--trust-issue`: the user read the issue and takes its text as the goal although its author has no write access. */
  trustIssue: boolean;
  apiUrl?: string;
}

/**
 * `taskloom run --issue`: reads the issue, says what of it makes the goal, and for an issue opened
 * by someone without write access shows the exact goal and asks (or takes --trust-issue; never
 * --yes, which approves plans, not people). Undefined when the user said no.
 */
export async function startIssueRun(door: FrontDoor, flags: IssueRunFlags, start: Omit<StartFromIssueParams, 'issue' | 'confirmed'>): Promise<StartedRun | undefined> {
  const read = await readIssue(door, { issue: flags.issue, ...(flags.apiUrl ? { apiUrl: flags.apiUrl } : {}) });
  const { record } = read;
  process.stdout.write(`${bold('Issue')} ${record.repo}#${record.number} by @${record.author}: ${record.url}\n`);
  if (record.leftOut.length) process.stdout.write(yellow(`${leftOutWords(record.leftOut)}; the ledger records them.\n`));
  if (record.authorTrusted) return startRunFromIssue(door, { ...start, issue: read, confirmed: false });
  process.stdout.write(yellow(`@${record.author} has no write access to ${record.repo}. The run's goal would be exactly:\n`));
  process.stdout.write(`${dim('─'.repeat(40))}\n${read.goal}\n${dim('─'.repeat(40))}\n`);
  const confirmed =
    flags.trustIssue ||
    (await askYesNo('Use this text as the goal?', {
      message: `Issue ${record.repo}#${record.number} was opened by @${record.author}, who has no write access; nothing was started`,
      hint: 'Read the issue; to use its text as the goal, pass --trust-issue (--yes does not confirm it), or run in a terminal to be asked.',
    }));
  if (!confirmed) {
    process.stdout.write('Not confirmed; nothing was started.\n');
    return undefined;
  }
  return startRunFromIssue(door, { ...start, issue: read, confirmed: true });
}

