import type { EventOf, RunEvent } from '../engine/domain/events';
import type { RunState } from '../engine/domain/runState';
import { bold, colorState, dim, green, red, yellow } from './format';
import { counted } from '../engine/text/counted';
import { oneLine } from '../engine/text/clip';
import { wordDecision } from '../engine/text/decisionWords';
import { gateJudgement } from '../engine/domain/gateTests';
import { baselineChoiceMadeWords, baselineWords, baseName, cachedFromWords, judgementParts, listedNames } from '../engine/text/gateWords';

/** Prints one line per event worth watching, as the run goes. */
export function createProgressPrinter(write: (line: string) => void = (l) => process.stdout.write(`${l}\n`)) {
  const started = Date.now();
  const stamp = () => dim(`${((Date.now() - started) / 1000).toFixed(1).padStart(6)}s`);
  return (event: RunEvent, state: RunState): void => {
    const line = describe(event, state);
    if (line) write(`${stamp()}  ${line}`);
  };
}

const QUEUE = bold('merge queue'.padEnd(14));
/** A person's message in one progress line: its start, the ledger has all of it. */
const MESSAGE_CHARS = 120;
const BASELINE = bold('baseline'.padEnd(14));
/** Continuation lines sit under the text of the line above, past the stamp ("  12.3s  ") and the name column. */
const UNDER = ' '.repeat(9 + 15);

function describe(e: RunEvent, state: RunState): string | undefined {
  switch (e.type) {
    case 'task_transition':
      return `${bold(e.taskId.padEnd(14))} ${colorState(e.from)} → ${colorState(e.to)}  ${dim(e.reason)}`;
    case 'gate_result':
      return gateLine(e, state);
    case 'baseline_result': {
      if (!state.baseline) return undefined;
      const { summary, lines } = baselineWords(state.baseline, baseName(state));
      const line = `${BASELINE} ${lines.length ? yellow(summary) : green(summary)}`;
      return [line, ...lines.map((l) => `${UNDER}${l}`)].join('\n');
    }
    case 'baseline_choice':
      return `${BASELINE} ${baselineChoiceMadeWords(e.commands, e.choice, e.bySetting)}`;
    case 'missed_regression':
      return red(`${QUEUE} missed regression: \`${e.command}\` fails ${listedNames(e.tests.map((t) => t.name))} after ${e.taskIds.join(', ') || 'the batch'}, whose task gates did not run them`);
    case 'worktree_setup': {
      const line = `${bold(e.taskId.padEnd(14))} ${lastDecisionSummary(state) ?? 'worktree setup'}`;
      return e.passed ? line : red(line);
    }
    case 'merge_done':
      return `${QUEUE} ${lastDecisionSummary(state) ?? `merged ${e.taskId}`}`;
    case 'merge_conflict':
      return `${QUEUE} ${red('conflict')} merging ${e.taskId}: ${e.files.join(', ')}`;
    case 'queue_batch':
      return `${QUEUE} batch ${e.batch}: merging ${e.taskIds.join(', ')}`;
    case 'queue_bisected':
      return `${QUEUE} ${yellow('bisected')} batch ${e.batch}: ${e.culprit} fails the integration gate`;
    case 'overlaps_predicted':
      return e.pairs.length ? `${bold('schedule'.padEnd(14))} ${counted(e.pairs.length, 'overlap')} predicted (${e.mode})` : undefined;
    case 'overlap_detected':
      return yellow(`${e.taskId.padEnd(14)} overlap: changed ${e.files.join(', ')}, also changed by ${e.otherTaskId}`);
    case 'plan_proposed':
      return `${bold('plan'.padEnd(14))} draft ${e.round}: ${e.plan.tasks.map((t) => t.id).join(', ')}`;
    case 'plan_reviewed':
      return `${bold('plan'.padEnd(14))} critic: ${e.blocking ? yellow(`changes required (${e.blocking})`) : green('approved')} ${dim(e.verdict.summary)}`;
    case 'run_paused':
      // A pause for a choice about the base says the ways on in its reason; the summary gives their commands.
      return yellow(`run paused: ${e.reason}`);
    case 'run_resumed':
      return `run resumed: ${e.reason}`;
    case 'warning':
      return yellow(`warning: ${e.taskId ? `${e.taskId}: ` : ''}${e.message}`);
    case 'integration_prepared':
      return `${QUEUE} merge queue into ${e.branch}`;
    case 'pr_observed':
    case 'pr_reaction_started':
    case 'pr_reaction_resumed':
    case 'pr_fix_gated':
    case 'pr_fix_reviewed':
    case 'pr_fix_pushed':
    case 'pr_reaction_finished': {
      const line = `${bold('pull request'.padEnd(14))} ${lastDecisionSummary(state) ?? e.type}`;
      return e.type === 'pr_reaction_finished' && e.outcome === 'failed' ? red(line) : line;
    }
    case 'pull_request_escalated':
      return red(`${bold('pull request'.padEnd(14))} ${lastDecisionSummary(state) ?? e.type}`);
    case 'pull_request_merged_by_taskloom':
      return green(`${bold('pull request'.padEnd(14))} ${lastDecisionSummary(state) ?? e.type}`);
    case 'pr_input_ignored':
      return yellow(`${'pull request'.padEnd(14)} ${lastDecisionSummary(state) ?? e.type}`);
    case 'task_message':
      return `${bold(e.taskId.padEnd(14))} message from ${e.from}: “${oneLine(e.text, MESSAGE_CHARS)}”`;
    case 'task_message_delivered':
    case 'task_stop_requested':
      return `${bold(e.taskId.padEnd(14))} ${lastDecisionSummary(state) ?? e.type}`;
    case 'run_request_refused':
      return yellow(`${e.taskId.padEnd(14)} ${lastDecisionSummary(state) ?? e.type}`);
    case 'pr_replied':
      return `${bold('pull request'.padEnd(14))} replied on review comment ${e.commentId}`;
    default:
      return undefined;
  }
}

/**
 * A task's gate only where its result rests on more than exit codes (its transitions say passed or
 * failed): "gate passed — already failing on main: x (not this task's); flaky: y". The integration gate always.
 */
function gateLine(e: EventOf<'gate_result'>, state: RunState): string | undefined {
  // A pull request's fix recorded as the integration's (it merged no task): its own gate line said it already.
  if (e.taskId === null && e.taskIds?.length === 0) return undefined;
  const outcome = e.passed ? green('passed') : red('failed');
  // A cached result was told when it ran: where it comes from is the news.
  const parts = e.cachedFrom ? [cachedFromWords(e.cachedFrom)] : judgementParts(gateJudgement(e.commands), baseName(state), e.taskId === null ? 'integration' : 'task');
  const judged = parts.length ? ` — ${parts.join('; ')}` : '';
  if (e.taskId === null) return `${QUEUE} gate ${outcome}${e.taskIds?.length ? ` on ${e.taskIds.join(', ')}` : ''}${judged}`;
  return parts.length ? `${bold(e.taskId.padEnd(14))} gate ${outcome}${judged}` : undefined;
}

function lastDecisionSummary(state: RunState): string | undefined {
  const last = state.decisions.at(-1);
  return last && wordDecision(last).summary;
}
