import { setTimeout as sleep } from 'node:timers/promises';
import { agentFor } from '../domain/agentRoles';
import type { AgentKind } from '../domain/runConfig';
import { LIVE_RUN_STATUSES } from '../domain/runState';
import { takesMessages, type SendOutcome } from '../domain/taskMessages';
import { TaskloomError } from '../domain/taskloomError';
import { liveLockOwner } from '../store/lock';
import { taskloomPaths } from '../store/paths';
import { MAX_MESSAGE_CHARS, RunInbox } from '../store/runInbox';
import type { RunStore } from '../store/runStore';
import { namedOrNewestRun } from './namedRun';
import { TaskTakesNoMessagesError, UnknownTaskError } from './useCaseErrors';

export interface SendParams {
  /** By default the newest run. */
  runId?: string;
  taskId: string;
  text: string;
  /** Who sends it (workspace/personName.ts): the ledger and the actor's prompt name them. */
  from: string;
  /** How long to wait for the process that drives the run to take the message (default 5 s; 0: do not wait). */
  waitMs?: number;
}

export interface SentMessage {
  runId: string;
  taskId: string;
  messageId: string;
  outcome: SendOutcome;
}

const DEFAULT_WAIT_MS = 5_000;
const LOOK_EVERY_MS = 200;

/**
 * Leaves a message for a task's actor in the run's inbox (no workspace lock: any terminal, while
 * the run is driven elsewhere), then reads the run's log (read-only is enough) to say what the
 * drive did with it. The message is the user's own instruction: the actor hears it mid-turn where
 * its agent can take input (Claude Code), else in the prompt of its next turn.
 */
export async function sendToTask(store: RunStore, params: SendParams): Promise<SentMessage> {
  const runId = namedOrNewestRun(store, params.runId);
  const { state } = store.loadRun(runId);
  const task = state.tasks[params.taskId];
  if (!task) throw new UnknownTaskError(runId, params.taskId, state.taskOrder);
  if (!takesMessages(task.state)) throw new TaskTakesNoMessagesError(task.id, task.state);
  const text = params.text.trim();
  if (!text) throw new TaskloomError('bad_input', 'The message is empty', 'Write what the task\'s agent should hear.');
  if (text.length > MAX_MESSAGE_CHARS) {
    throw new TaskloomError('bad_input', `The message is ${text.length} characters long (at most ${MAX_MESSAGE_CHARS})`, 'Say it shorter; point the agent at a file for the details.');
  }
  const request = new RunInbox(store.runPaths(runId).dir).post({ kind: 'message', taskId: task.id, from: params.from, text });
  const planTask = state.plan.tasks.find((t) => t.id === task.id);
  const agent = agentFor(state.config, 'actor', planTask).agent.kind;
  const outcome = await followMessage(store, runId, request.id, agent, state.lastSeq, params.waitMs ?? DEFAULT_WAIT_MS);
  return { runId, taskId: task.id, messageId: request.id, outcome };
}

/** Only Claude Code takes what a person says into the turn it is working on (stream-json input). */
const takesInputMidTurn = (agent: AgentKind): boolean => agent === 'claude';

async function followMessage(store: RunStore, runId: string, id: string, agent: AgentKind, afterSeq: number, waitMs: number): Promise<SendOutcome> {
  const deadline = Date.now() + waitMs;
  let recorded = false;
  for (;;) {
    const { events, lastSeq } = store.events(runId, { afterSeq });
    afterSeq = lastSeq;
    for (const e of events) {
      if (e.type === 'run_request_refused' && e.requestId === id) return { kind: 'refused', why: e.why, ...(e.state ? { state: e.state } : {}) };
      if (e.type === 'task_message_delivered' && e.messageId === id) return { kind: 'delivered', how: e.how, attempt: e.attempt };
      if (e.type === 'task_message' && e.messageId === id) recorded = true;
    }
    // An agent that cannot take it mid-turn will not: no need to wait for its next turn.
    if (recorded && !takesInputMidTurn(agent)) return { kind: 'queued', agent, midTurn: false };
    if (Date.now() >= deadline) break;
    await sleep(LOOK_EVERY_MS);
  }
  if (recorded) return { kind: 'queued', agent, midTurn: true };
  const { state } = store.loadRun(runId);
  const driven = LIVE_RUN_STATUSES.has(state.status) && liveLockOwner(taskloomPaths(store.repoRoot).dir) !== undefined;
  return { kind: 'not_taken', driven };
}
