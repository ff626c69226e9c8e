import type { PlanTaskFinding } from '../domain/planFindings';

/** One finding as every view says it: `task "flaky" has no description`. */
export const planFindingWords = (finding: PlanTaskFinding): string => `task "${finding.taskId}" has no ${finding.field}`;

/** All of them in one line, the first few named: what stops a plan from being approved. */
export function planFindingsSentence(findings: readonly PlanTaskFinding[], named = 5): string {
  const words = findings.slice(0, named).map(planFindingWords);
  if (findings.length > named) words.push(`${findings.length - named} more`);
  return words.join('; ');
}
