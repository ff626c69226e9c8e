import type { RunState } from '../domain/runState';
import { TASK_STATE_WORDS } from '../domain/stateWords';
import { counted } from '../text/counted';
import { clipEnd } from '../text/clip';

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();
const money = (usd: number): string => (usd === 0 ? '$0' : usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`);

/** The pull request's title: the run's goal, on one line. */
export function pullRequestTitle(state: RunState): string {
  return clipEnd(state.goal.split('\n')[0]!.trim(), 120);
}

/** `#N` for an issue on `repo` (the pull request's repository), `OWNER/REPO#N` for one on another: what GitHub links. */
const issueReference = (issue: { repo: string; number: number }, repo: string | undefined): string =>
  `${issue.repo.toLowerCase() === repo?.toLowerCase() ? '' : issue.repo}#${issue.number}`;

/**
 * The description of task `taskId`'s pull request in a stack (`pr --stacked`): `position` of
 * `count`, based on `base`. A run from an issue closes it from the top of the stack only: GitHub
 * closes an issue when a pull request that says `Closes` is merged into the default branch, and a
 * stack lands bottom first (each next one retargeted to the default branch as the one below lands),
 * so the top is merged last; `Closes` on each would close the issue with the first, half the work
 * still open. The ones below refer to the issue without closing it.
 */
export function stackedPullRequestBody(state: RunState, taskId: string, stack: { position: number; count: number; base: string }, repo?: string): string {
  const title = state.tasks[taskId]!.title;
  const lines = [title, '', `Part of "${pullRequestTitle(state)}" (Taskloom run \`${state.runId}\`): ${stack.position} of ${stack.count}, based on \`${stack.base}\`.`];
  if (state.issue) {
    lines.push('', stack.position === stack.count ? `Closes ${issueReference(state.issue, repo)}` : `Part of ${issueReference(state.issue, repo)}; the top of the stack closes it.`);
  }
  return lines.join('\n');
}

/**
 * The pull request's description, from the ledger: the plan, each task (state, attempts, cost), the
 * integration gate; for a run started from an issue, `Closes` it (by number on `repo`, the pull
 * request's repository, by OWNER/REPO#N on another), so merging closes the issue.
 */
export function pullRequestBody(state: RunState, repo?: string): string {
  const gate = state.integration.lastGate;
  const lines = [state.goal.trim(), ''];
  if (state.issue) lines.push(`Closes ${issueReference(state.issue, repo)}`, '');
  if (state.plan.rationale) lines.push(`**Plan.** ${state.plan.rationale.trim()}`, '');
  lines.push('| Task | | State | Attempts | Cost |', '| --- | --- | --- | ---: | ---: |');
  for (const id of state.taskOrder) {
    const t = state.tasks[id]!;
    lines.push(`| \`${id}\` | ${cell(t.title)} | ${TASK_STATE_WORDS[t.state]} | ${t.attempts.length} | ${money(t.usage.costUsd)} |`);
  }
  lines.push('');
  if (gate) {
    const commands = gate.commands.map((c) => `\`${c.command}\``).join(', ') || 'no commands';
    lines.push(`**Integration gate:** ${gate.passed ? 'passed' : 'failed'} (${commands})${gate.commit ? ` on ${gate.commit.slice(0, 10)}` : ''}.`);
  }
  const skipped = state.taskOrder.filter((id) => state.tasks[id]!.state === 'SKIPPED');
  if (skipped.length) lines.push(`**Not included (skipped):** ${skipped.map((id) => `\`${id}\``).join(', ')}.`);
  lines.push(
    `**Usage:** ${counted(state.usage.calls, 'agent call')}, ${money(state.usage.total.costUsd)}.`,
    '',
    `<sub>Opened by Taskloom from run \`${state.runId}\`; every decision is in \`.taskloom/runs/${state.runId}/DECISIONS.md\`.</sub>`,
  );
  return lines.join('\n');
}
