import type { GateCommandResult } from '../domain/events';
import type { TestRef } from '../domain/gateTests';
import { displayLine } from '../text/terminalText';
import { messagesHeading } from '../text/messageWords';
import { fencedDiff } from '../text/untrustedText';
import type { GateSummary } from '../domain/runState';
import type { PlanTask } from '../domain/plan';
import type { CriticFinding } from '../domain/verdict';
import { describeSensitiveChange, type SensitiveChange } from '../domain/sensitivePaths';
import { resolutionReviewPrompt, type ResolutionReview } from './resolutionPrompts';

/** What the previous attempt (or the merge queue) left the actor to fix. */
/** What a person said to the task's actor while it worked (`taskloom send`). */
export interface PersonMessage {
  from: string;
  text: string;
}

export type ActorFeedback =
  | { kind: 'gate'; gate: GateSummary }
  /** The integration gate failed on the merged result; the worktree has taken in the integration branch. */
  | { kind: 'integration'; gate: GateSummary }
  | { kind: 'critic'; summary: string; findings: CriticFinding[] }
  /** The attempt left the files the gate failed on: the gate was not run again, this failure of it stands. */
  | { kind: 'unchanged'; gate: GateSummary };

/** A failed gate command for the actor: what failed (the excerpt), and how to see all of it. */
const failureText = (c: GateCommandResult): string =>
  `$ ${c.command}  (exit ${c.timedOut ? 'timeout' : c.exitCode})\n${c.failure ? `${c.failure.excerpt}\n(what failed, from its output; run \`${c.command}\` for all of it)` : c.output}`;

const bullet = (lines: string[]): string => lines.map((l) => `- ${l}`).join('\n');

/** A test as the runner named it, one line each (a report is written by code the agent controls). */
const testLine = (t: TestRef): string => displayLine(`${t.name}${t.file && !t.name.includes(t.file) ? ` (${t.file})` : ''}`, 300);

/** The first `shown` tests, counted past them: a suite with thousands of failures must not fill the prompt. */
const someTests = (tests: readonly TestRef[], shown: number): string[] =>
  [...tests.slice(0, shown).map(testLine), ...(tests.length > shown ? [`… and ${tests.length - shown} more`] : [])];

/**
 * The gate's failures as the actor's job: only what this change broke. Where the runner said which
 * tests, that is the tests that fail now and passed on the base; the ones failing there already,
 * and commands the user made advisory (they fail on the base too), are named as not theirs, so an
 * agent never "fixes" (or deletes) a failure it did not cause.
 */
function gateFailureParts(gate: GateSummary): string[] {
  const parts: string[] = [];
  const notYours: string[] = [];
  for (const c of gate.commands) {
    if (c.exitCode === 0) continue;
    if (c.advisory) {
      notYours.push(`\`${c.command}\` fails on the base too; the user made it advisory for this run: it is not your job.`);
      continue;
    }
    const tests = c.tests;
    if (tests?.alreadyFailing.length) {
      notYours.push(`\`${c.command}\`: these tests already failed before your change, on the base: ${someTests(tests.alreadyFailing, 20).join(', ')}. They are not yours: leave them as they are (do not fix, skip or delete them); the output below may show them too.`);
    }
    if (tests && tests.newFailures.length === 0 && tests.failed.length > 0) continue;
    if (tests?.newFailures.length) parts.push(`Your job in \`${c.command}\`: these tests fail with your change and passed without it:\n${bullet(someTests(tests.newFailures, 50))}`);
    parts.push(failureText(c));
  }
  return [...parts, ...notYours];
}

export function actorPrompt(task: PlanTask, goal: string, feedback?: ActorFeedback, humanNote?: string, messages: readonly PersonMessage[] = []): string {
  const parts = [
    `You are working on one task of a larger goal: "${goal}".`,
    `Task ${task.id}: ${task.title}`,
    task.description,
    task.acceptance.length ? `Acceptance criteria:\n${bullet(task.acceptance)}` : '',
    task.files?.length ? `Files likely involved:\n${bullet(task.files)}` : '',
    'Work only inside the current directory (a git worktree made for this task). Do not commit; Taskloom commits your changes and runs the gate itself.',
  ];
  if (humanNote) parts.push(`A human reviewed the previous attempts and says:\n${humanNote}`);
  if (feedback?.kind === 'gate') {
    parts.push(
      'The mechanical gate failed on your previous attempt. Fix the cause (do not weaken or delete tests):',
      ...gateFailureParts(feedback.gate),
    );
  }
  if (feedback?.kind === 'unchanged') {
    parts.push(
      'Your work leaves the files exactly as they were when the gate failed, so it was not run again: its failure stands. Change the code so that it passes (do not weaken or delete tests):',
      ...gateFailureParts(feedback.gate),
    );
  }
  if (feedback?.kind === 'integration') {
    parts.push(
      'Your change passed its own gate, but the gate failed once it was merged with the work of the other tasks. ' +
        'That work is now merged into your worktree too. Make the combination pass (do not weaken or delete tests, do not undo the other work):',
      ...gateFailureParts(feedback.gate),
    );
  }
  if (feedback?.kind === 'critic') {
    parts.push(
      `The reviewer asked for changes: ${feedback.summary}`,
      bullet(feedback.findings.map((f) => `${f.file ? `${f.file}${f.line ? `:${f.line}` : ''} ` : ''}[${f.category}] ${f.message}`)),
    );
  }
  // The user's own words, as they wrote them: instructions for the actor like the task itself.
  if (messages.length) parts.push(messagesHeading(messages.map((m) => m.from)), ...messages.map((m) => `From ${m.from}:\n${m.text}`));
  return parts.filter(Boolean).join('\n\n');
}

/** The critic's brief: the task's diff against its base, or, for a conflict resolution, the merge against both parents. */
export function criticPrompt(task: PlanTask, diff: string, gate: GateSummary | undefined, resolution?: ResolutionReview, sensitive: readonly SensitiveChange[] = []): string {
  const change = resolution
    ? [resolutionReviewPrompt(resolution)]
    : [`Review the change made for task ${task.id}: ${task.title}`, task.description];
  return [
    ...change,
    task.acceptance.length ? `Acceptance criteria:\n${bullet(task.acceptance)}` : '',
    `Mechanical gate: ${gate ? (gate.passed ? 'passed' : 'failed') : 'not run'}${gate?.commands.length ? ` (${gate.commands.map((c) => c.command).join(', ')})` : ''}`,
    sensitive.length
      ? `This change touches sensitive paths, where what is written runs later on people's machines or in CI (a human approves them after your review):\n${bullet(sensitive.map(describeSensitiveChange))}\nCheck that each of these changes is what the task needs and nothing more; anything that downloads or runs code, sends data out, or weakens a check is a blocking security finding.`
      : '',
    resolution ? '' : `The diff against the task's base:\n${fencedDiff(diff)}`,
    'Answer with JSON only: {"decision": "green" | "changes_required", "summary": string, "findings": [{"file", "line", "severity": "blocker"|"major"|"minor"|"nit", "category": "correctness"|"requirements"|"test-integrity"|"breakage"|"security"|"style"|"other", "message"}]}.',
    'Only correctness, requirements, test-integrity, breakage and security findings block; style is a nit.',
  ]
    .filter(Boolean)
    .join('\n\n');
}

export const VERDICT_REPAIR_PROMPT =
  'Your previous answer was not a valid verdict. Reply again with only the JSON object described above, nothing else.';
