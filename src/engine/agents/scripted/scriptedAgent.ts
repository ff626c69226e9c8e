import { setTimeout as sleep } from 'node:timers/promises';
import type { CriticVerdict } from '../../domain/verdict';
import type { ActivityLine, AgentRequest, HeartbeatLine, ResultLine } from './agentProtocol';
import { applyStepFiles, StepError } from './applyStepFiles';
import { keepBothSides } from './keepBothSides';
import { loadScenario, ScenarioError, selectStep, type Scenario, type ScenarioStep } from './scenario';

/** How the call ends: with a result line, or by misbehaving like a real agent can. */
export type AgentOutcome = { kind: 'result'; line: ResultLine } | { kind: 'hang' } | { kind: 'crash' };

/** Heartbeats this often keep any sensible watchdog quiet while the agent "thinks". */
export const ACTIVITY_INTERVAL_MS = 200;

type Emit = (line: ActivityLine | HeartbeatLine) => void;

const ZERO = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

/** Performs one scripted call in `cwd`, reporting progress through `emit` (the start is announced by the caller). */
export async function performScriptedCall(
  request: AgentRequest,
  cwd: string,
  emit: Emit,
): Promise<AgentOutcome> {
  const { role, taskId, attempt, purpose, candidate } = request;
  const sessionId = `scripted-${taskId ?? 'run'}-${role}`;
  const subject = taskId === null ? 'the run' : `task ${taskId}`;

  let scenario: Scenario;
  try {
    scenario = loadScenario(request.scenarioPath);
  } catch (err) {
    if (!(err instanceof ScenarioError)) throw err;
    return result({ status: 'agent_error', text: err.message, usage: ZERO, costUsd: 0, sessionId });
  }

  const step = selectStep(scenario, role, taskId, attempt, purpose, candidate);
  const usage = { ...ZERO, ...(step?.usage ?? scenario.defaults?.usage) };
  const costUsd = step?.costUsd ?? scenario.defaults?.costUsd ?? 0;
  const finish = (status: ResultLine['status'], text: string, structured?: unknown) =>
    result({ status, text, ...(structured === undefined ? {} : { structured }), usage, costUsd, sessionId });

  if (step?.hang) return { kind: 'hang' };
  await think(step?.delayMs ?? scenario.defaults?.delayMs ?? 0, step?.say ?? [], emit);

  if (!step && purpose === 'resolve') {
    const done = keepBothSides(cwd);
    done.forEach((message) => emit({ type: 'activity', kind: 'tool', message }));
    return finish('ok', `no scripted resolution for ${subject}; ${done.join('; ') || 'no conflicted files'}`);
  }
  if (!step && purpose === 'compare') return finish('ok', `no scripted comparison of the candidates of ${subject}`);
  if (!step) return unscripted(role, subject, finish);

  let changes: string[];
  try {
    changes = applyStepFiles(step, cwd, (message) => emit({ type: 'activity', kind: 'tool', message }));
  } catch (err) {
    // A file system refusal (EISDIR, EACCES) is the agent failing at its job, as for a real agent.
    return finish('agent_error', err instanceof StepError ? err.message : `a file change failed: ${(err as Error).message}`);
  }
  if (step.crash) return { kind: 'crash' };
  if (step.quota) return finish('quota', step.text ?? 'scripted usage limit reached; try again later');
  if (step.fail !== undefined) return finish('agent_error', step.fail);
  return answer(step, role, subject, attempt, changes, finish);
}

type Finish = (status: ResultLine['status'], text: string, structured?: unknown) => AgentOutcome;

function answer(
  step: ScenarioStep,
  role: AgentRequest['role'],
  subject: string,
  attempt: number,
  changes: string[],
  finish: Finish,
): AgentOutcome {
  if (step.raw !== undefined) return finish('ok', step.raw);
  const structured = step.verdict ?? step.output;
  if (structured !== undefined) return finish('ok', JSON.stringify(structured), structured);
  if (step.text !== undefined) return finish('ok', step.text);
  if (role === 'critic') {
    const verdict = greenVerdict(`scripted review of ${subject}: no findings`);
    return finish('ok', JSON.stringify(verdict), verdict);
  }
  const summary = changes.length > 0 ? changes.join('; ') : 'no file changes';
  return finish('ok', `scripted ${role} step ${attempt} for ${subject}: ${summary}`);
}

/** Nothing scripted for this call: the actor changes nothing and the critic approves. */
function unscripted(role: AgentRequest['role'], subject: string, finish: Finish): AgentOutcome {
  switch (role) {
    case 'actor':
      return finish('ok', `no scripted actor step for ${subject}; nothing changed`);
    case 'critic': {
      const verdict = greenVerdict(`no scripted review for ${subject}; approving`);
      return finish('ok', JSON.stringify(verdict), verdict);
    }
    case 'planner':
      return finish('agent_error', 'the scenario has no planner steps');
  }
}

const greenVerdict = (summary: string): CriticVerdict => ({ decision: 'green', summary, findings: [] });

/**
 * Waits `delayMs`, saying each of `say` at even intervals in it, with heartbeats in between:
 * output for the watchdog, not activity (a transcript shows what the agent said, not its pulse).
 */
async function think(delayMs: number, say: string[], emit: Emit): Promise<void> {
  const start = Date.now();
  const until = start + delayMs;
  let said = 0;
  // Line i is due at (i + 1) / (n + 1) of the way; with no delay they are all said at once.
  const dueAt = (i: number) => start + ((i + 1) * delayMs) / (say.length + 1);
  const sayDue = () => {
    while (said < say.length && Date.now() >= dueAt(said)) emit({ type: 'activity', kind: 'text', message: say[said++]! });
  };
  sayDue();
  while (Date.now() < until) {
    const next = said < say.length ? Math.min(dueAt(said), until) : until;
    await sleep(Math.max(0, Math.min(ACTIVITY_INTERVAL_MS, next - Date.now())));
    const before = said;
    sayDue();
    if (said === before && Date.now() < until) emit({ type: 'heartbeat' });
  }
  while (said < say.length) emit({ type: 'activity', kind: 'text', message: say[said++]! });
}

const result = (line: Omit<ResultLine, 'type'>): AgentOutcome => ({ kind: 'result', line: { type: 'result', ...line } });
