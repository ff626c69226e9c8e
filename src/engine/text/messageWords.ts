import type { MessageDelivery, RequestRefusal, RunRequestKind } from '../domain/events';
import type { AgentKind } from '../domain/runConfig';
import { TASK_STATE_WORDS } from '../domain/stateWords';
import type { SendOutcome } from '../domain/taskMessages';
import type { TaskState } from '../domain/taskStates';

// The words of a person steering a running task: the ledger, the transcript, `taskloom send`, the run view's message box.

/** Why a task in `state` takes no message, and what to do instead. */
export function noMessagesWords(state: TaskState): string {
  switch (state) {
    case 'NEEDS_HUMAN':
    case 'HUMAN_RESOLVING':
      return `it ${state === 'NEEDS_HUMAN' ? 'needs you' : 'is being resolved by hand'}, so no agent is working on it: use retry with a note to tell its actor`;
    case 'SKIPPED':
      return 'it was skipped: retry it with a note to have its actor work on it again';
    case 'MERGED':
      return 'it is merged: its actor takes no more turns';
    default:
      return `it is ${TASK_STATE_WORDS[state]}: its work was approved, so its actor takes no more turns`;
  }
}

/** What became of a message, for the transcript of the call it reached and the ledger. */
export function deliveryWords(how: MessageDelivery, from: string, attempt: number): string {
  return how === 'live' ? `message from ${from} joined the running turn (attempt ${attempt})` : `message from ${from} went into the prompt of attempt ${attempt}`;
}

const REQUEST_WORDS: Record<RunRequestKind, string> = { message: 'message', stop: 'request to stop the task', take_over: 'request to take the task over' };

/** A request of the run's inbox that was refused: whose, and why. */
export function refusedRequestWords(r: { kind: RunRequestKind; taskId: string; from: string; why: RequestRefusal; state?: TaskState }): string {
  const why = r.why === 'unknown_task' ? `the run has no task "${r.taskId}"` : r.kind === 'message' && r.state ? noMessagesWords(r.state) : `it is ${r.state ? TASK_STATE_WORDS[r.state] : 'not running'}`;
  return `${REQUEST_WORDS[r.kind]} from ${r.from} not taken: ${why}`;
}

/** The head of the actor prompt's section that quotes what people said while it worked. */
export const messagesHeading = (from: readonly string[]): string => `Messages from ${[...new Set(from)].join(', ')} while you worked:`;

/** A file in a run's inbox that is no request: set aside, for a person to read. */
export const unreadableRequestWords = (problem: string): string =>
  `a request left in the run's inbox could not be read and was set aside in its inbox-unreadable folder: ${problem}`;

const AGENT_NAMES: Record<AgentKind, string> = { claude: 'Claude Code', codex: 'Codex', command: 'a command agent', scripted: 'the scripted agent' };

/** What `taskloom send` (and the run view's message box) says became of a message. */
export function sendOutcomeWords(taskId: string, runId: string, outcome: SendOutcome): string {
  switch (outcome.kind) {
    case 'delivered':
      return outcome.how === 'live'
        ? `Delivered: it joined the running turn of "${taskId}"'s actor (attempt ${outcome.attempt}).`
        : `Delivered: it went into the prompt of "${taskId}"'s attempt ${outcome.attempt}.`;
    case 'queued':
      return outcome.midTurn
        ? `Taken: "${taskId}"'s actor (${AGENT_NAMES[outcome.agent]}) hears it at its next step, or in its next turn if this one ends first.`
        : `Queued for "${taskId}"'s next actor turn: ${AGENT_NAMES[outcome.agent]} cannot take input mid-turn.`;
    case 'refused':
      return `Not taken: ${outcome.why === 'unknown_task' ? `run ${runId} has no task "${taskId}"` : outcome.state ? noMessagesWords(outcome.state) : 'the task takes no messages now'}.`;
    case 'not_taken':
      return outcome.driven
        ? `Left in run ${runId}'s inbox: the process that holds this workspace has not taken it yet; it does when it drives the run.`
        : `No process drives run ${runId} now: the message waits in its inbox and is delivered when the run is resumed.`;
  }
}
