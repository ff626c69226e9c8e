import type { Plan } from '../domain/plan';
import type { CriticFinding } from '../domain/verdict';

const PLAN_SHAPE =
  '{"goal": string, "rationale": string, "tasks": [{"id": "kebab-case-id", "title": string, "description": string, "acceptance": [string], "dependsOn": [task ids], "files": [paths]}]}';

/** What the planner sees: the goal, a glance at the repository, and the critic's findings on a previous draft. */
export function plannerPrompt(goal: string, repoContext: string, previous?: { plan: Plan; findings: CriticFinding[] }): string {
  const parts = [
    `Plan this goal as a small graph of tasks for coding agents: "${goal}".`,
    'Each task runs in its own git worktree built on its dependencies, is checked by the project\'s tests, then reviewed. Prefer few, independent, testable tasks; add a dependency only where a task needs another\'s code.',
    `The repository:\n${repoContext}`,
    `Answer with JSON only, shaped like ${PLAN_SHAPE}. Ids: lower-case letters, digits, ".", "_" or "-"; never "integration".`,
  ];
  if (previous) {
    parts.push(
      `A reviewer asked for changes to your previous draft:\n${JSON.stringify(previous.plan, null, 2)}`,
      previous.findings.map((f) => `- [${f.category}] ${f.message}`).join('\n'),
    );
  }
  return parts.join('\n\n');
}

export function planRepairPrompt(problem: string): string {
  return `Your previous answer was not a valid plan (${problem}). Reply again with only the JSON object described above.`;
}

export function planReviewPrompt(goal: string, plan: Plan): string {
  return [
    `Review this plan for the goal "${goal}" before any code is written:`,
    JSON.stringify(plan, null, 2),
    'Block only for real problems: a requirement of the goal no task covers, a missing or wrong dependency, a task too vague to verify, a task that cannot be tested. Style is a nit.',
    'Answer with JSON only: {"decision": "green" | "changes_required", "summary": string, "findings": [{"severity", "category": "correctness"|"requirements"|"test-integrity"|"breakage"|"security"|"style"|"other", "message"}]}.',
  ].join('\n\n');
}
