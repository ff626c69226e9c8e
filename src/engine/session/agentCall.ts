import { failureDetail, withLastOutput, type LiveMessage, type LiveMessages, type RunnerInput, type RunnerResult } from '../agents/runner';
import { deliveryWords } from '../text/messageWords';
import { oneLine } from '../text/clip';
import { redactSecrets } from '../io/redactSecrets';
import type { RunContext } from './runContext';
import { taskEnv } from './taskEnv';
import { agentLauncher } from './taskProcesses';
import { RUNNER_STATUS_WORDS } from '../domain/stateWords';
import { TranscriptRecorder } from './transcriptRecorder';

/** What a call answered, and which agent answered it (for commit trailers and messages). */
export type AgentCallResult = RunnerResult & { agent: string };

/**
 * Runs one agent call with the agent of its role (or its task's own actor) and records it: what
 * it prints as its transcript while it works, then a `runner_call` event, whatever its outcome.
 */
export async function callAgent(
  ctx: Pick<RunContext, 'session' | 'agents' | 'signal' | 'sandbox'>,
  { heard = [], ...input }: Omit<RunnerInput, 'idleTimeoutMs' | 'signal' | 'launch' | 'confined'> & { heard?: readonly LiveMessage[] },
): Promise<AgentCallResult> {
  const started = Date.now();
  const { runner, agent, model: chosenModel } = ctx.agents.forCall(input.role, input.taskId, input.candidate);
  const writes = input.role === 'actor' && input.access === 'workspace-write';
  const transcript = new TranscriptRecorder((body) => ctx.session.emit(body), input);
  // A person's messages show in the transcript where the actor heard them: in its prompt, or mid-turn.
  for (const message of heard) transcript.add({ kind: 'status', message: heardWords('next_turn', message, input.attempt) });
  const messages = input.messages && heardInTranscript(input.messages, transcript, input.attempt);
  let result: RunnerResult;
  try {
    const model = input.model ?? chosenModel;
    result = await runner.run(
      {
        ...input,
        ...(messages ? { messages } : {}),
        launch: await agentLauncher(ctx, { role: input.role, cwd: input.cwd, writes }, agent),
        confined: ctx.sandbox.confinement.confined,
        env: { ...taskEnv(ctx.session.state, input.taskId), ...input.env },
        ...(model ? { model } : {}),
        idleTimeoutMs: ctx.session.state.config.stuckThresholdSeconds * 1000,
        signal: ctx.signal,
      },
      (activity) => transcript.add(activity),
    );
  } catch (error) {
    result = {
      status: 'crashed',
      text: '',
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 },
      model: 'unknown',
      durationMs: Date.now() - started,
      error: `The ${runner.name} runner threw: ${(error as Error).message}`,
    };
  }
  // The store redacts every event, but the error also feeds reasons and messages built from the
  // result (describeFailure), so it leaves here without secrets already.
  if (result.error) result = { ...result, error: redactSecrets(result.error) };
  if (result.lastOutput) result = { ...result, lastOutput: redactSecrets(result.lastOutput) };
  const transcriptSeq = transcript.finish();
  ctx.session.emit({
    type: 'runner_call',
    taskId: input.taskId,
    role: input.role,
    agent: runner.name,
    model: result.model,
    status: result.status,
    usage: result.usage,
    durationMs: result.durationMs,
    quotaHit: result.status === 'quota',
    ...(result.sessionId ? { sessionId: result.sessionId } : {}),
    ...(input.resumeSessionId ? { resumed: true } : {}),
    ...(result.status !== 'ok' && result.error ? { detail: failureDetail(result) } : {}),
    ...(transcriptSeq !== undefined ? { transcript: transcriptSeq } : {}),
    ...(input.candidate !== undefined ? { candidate: input.candidate } : {}),
  });
  return { ...result, agent: runner.name };
}

/** What the transcript says where the actor heard a message: how, from whom, and the words themselves. */
const heardWords = (how: 'live' | 'next_turn', message: LiveMessage, attempt: number): string => `${deliveryWords(how, message.from, attempt)}: “${oneLine(message.text, HEARD_CHARS)}”`;
const HEARD_CHARS = 300;

function heardInTranscript(messages: LiveMessages, transcript: TranscriptRecorder, attempt: number): LiveMessages {
  return {
    subscribe: (listener) => messages.subscribe(listener),
    delivered(message) {
      messages.delivered(message);
      transcript.add({ kind: 'status', message: heardWords('live', message, attempt) });
    },
  };
}

/** A one-line reason for a failed call, for the transition that follows it. */
export function describeFailure(role: string, result: RunnerResult, stuckSeconds: number): string {
  switch (result.status) {
    case 'idle_timeout':
      // The runner's error restates the timeout; only what the agent last printed is new here.
      return withLastOutput(`${role} showed no activity for ${stuckSeconds}s and was stopped`, result.lastOutput || undefined);
    case 'quota':
      return `${role} hit a usage quota or rate limit; the run is paused`;
    case 'cancelled':
      return `${role} was cancelled`;
    default:
      return `${role} failed (${RUNNER_STATUS_WORDS[result.status]})${result.error ? `: ${failureDetail(result)}` : ''}`;
  }
}
