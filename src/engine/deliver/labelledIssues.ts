import type { Forge, Issue } from '../forge/forge';
import type { AuthorTrust } from './authorTrust';

/** An open issue with the label, and whether the label may start a run: only when the person who put it on last has write access. */
export interface LabelledIssue {
  issue: Issue;
  /** Who put the label on last (the issue's events); undefined when the forge keeps no such event. */
  labelledBy: string | undefined;
  start: boolean;
}

/**
 * The open issues labelled `label` that have no run yet (`handled`), oldest first, each with who put
 * the label on last: its run starts only when that person has write access by the forge's
 * collaborator permission (a label event carries no author association; triage is not write).
 */
export async function labelledIssues(forge: Forge, label: string, handled: ReadonlySet<number>, trust: AuthorTrust): Promise<LabelledIssue[]> {
  const open = (await forge.openIssuesLabelled(label)).filter((issue) => !handled.has(issue.number));
  const found: LabelledIssue[] = [];
  for (const issue of open) {
    const labelledBy = (await forge.issueLabelings(issue.number)).filter((labeling) => labeling.label === label).at(-1)?.actor;
    found.push({ issue, labelledBy, start: labelledBy !== undefined && (await trust.mayWrite(labelledBy)) });
  }
  return found;
}
