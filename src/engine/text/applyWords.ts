import type { ApplyHistory } from '../domain/events';
import { counted } from './counted';

/** What each history puts on the user's branch, in the words the CLI, the editor and the ledger share. */
export const HISTORY_WORDS: Record<ApplyHistory, string> = {
  merge: 'one commit per task, joined to the branch by a merge commit',
  squash: 'one commit per task, on the branch itself',
};

/** "4 commits (merge history)": the commits an apply made, or will make, and how. */
export const appliedAs = (history: ApplyHistory, commits: number): string => `${counted(commits, 'commit')} (${history} history)`;
