import type { AgentRole, CallPurpose, RunnerStatus } from '../domain/events';
import type { TokenUsage } from '../domain/usage';
import type { ProcessLauncher } from '../process/launcher';

/** What the agent may do: the critic and the planner only read. */
export type AccessLevel = 'read-only' | 'workspace-write';

export interface RunnerInput {
  role: AgentRole;
  prompt: string;
  cwd: string;
  /** The task this call works on (null for run-level calls such as planning). */
  taskId: string | null;
  /** 1-based: the actor's build attempt (its resolution number when resolving), or the critic's review number, within the task's current try. */
  attempt: number;
  /**
   * 'resolve': the actor is resolving a merge conflict (the prompt says which); 'fix': the actor or
   * critic works on a pull request's failing check or review (`taskloom watch`); 'compare': the critic
   * picks among a task's candidates.
   */
  purpose?: CallPurpose;
  /** The candidate this actor call builds (run/candidates.ts), in its own worktree. */
  candidate?: number;
  model?: string;
  access: AccessLevel;
  /** Continue this agent conversation instead of starting a new one, where the agent supports it. */
  resumeSessionId?: string;
  /**
   * Shell commands a writing actor may run (each also with arguments), where the agent can
   * enforce a list: the gate's commands plus the user's allowlist. Anything else is refused.
   */
  allowedCommands?: string[];
  /**
   * The call runs inside Taskloom's sandbox (see src/engine/sandbox): an agent then skips a sandbox
   * of its own, which could not start nested, and needs no command allow-list.
   */
  confined?: boolean;
  /** Starts the call's processes: the run's sandbox for this call (see src/engine/session/taskProcesses.ts). */
  launch: ProcessLauncher;
  /** Variables added to the environment of the call's processes (TASKLOOM_RUN_ID, TASKLOOM_TASK_ID, TASKLOOM_PORT). */
  env?: Record<string, string>;
  /** Ask for structured output matching this JSON schema (critic verdicts, plans). */
  outputSchema?: object;
  /** No activity for this long aborts the call with status `idle_timeout`. */
  idleTimeoutMs: number;
  signal: AbortSignal;
  /**
   * What a person says to the actor while this call works (`taskloom send`): a runner whose agent
   * takes input mid-turn subscribes and says which messages reached the agent. One that cannot
   * leaves them alone: they wait for the task's next actor turn, whose prompt quotes them.
   */
  messages?: LiveMessages;
}

/** A person's message for the agent at work. */
export interface LiveMessage {
  id: string;
  from: string;
  text: string;
}

export interface LiveMessages {
  /** Calls `listener` with each message waiting now, then with each that arrives, until the returned function is called. */
  subscribe(listener: (message: LiveMessage) => void): () => void;
  /** The agent took the message into the turn it is working on. */
  delivered(message: LiveMessage): void;
}

/** Something the agent did, streamed while it works; any activity feeds the watchdog. */
export interface RunnerActivity {
  kind: 'text' | 'tool' | 'status';
  message: string;
}

export interface RunnerResult {
  status: RunnerStatus;
  /** The agent's final answer (for the critic: the verdict JSON as text). */
  text: string;
  /** Parsed structured output when the agent returned some. */
  structured?: unknown;
  usage: TokenUsage;
  sessionId?: string;
  model: string;
  durationMs: number;
  /** Human-readable reason when status is not ok; what the agent printed is apart, in `lastOutput`. */
  error?: string;
  /** Why a failed call failed, where the runner knows it. */
  cause?: FailureCause;
  /** The agent's last output lines before it failed ('' when it printed nothing), for the human who reads why. */
  lastOutput?: string;
}

/**
 * Why a call failed, as far as its runner can tell: its program is not installed; it showed no
 * activity for the stuck threshold; it ran past the limit for one call; it exited (or was killed)
 * without an answer; it answered, but with an error or nothing usable.
 */
export type FailureCause = 'not_installed' | 'stuck' | 'timed_out' | 'exited' | 'bad_output';

/** A failed call's reason followed by what the agent last printed: the one wording of it. */
export function withLastOutput(reason: string, lastOutput: string | undefined): string {
  if (lastOutput === undefined) return reason;
  return lastOutput === '' ? `${reason} (no output)` : `${reason}; last output:\n${lastOutput}`;
}

/** How a runner words a failed call: `base` (what the call did report: text, usage, model, duration) with why it failed. */
export function failureOf(
  base: Omit<RunnerResult, 'status' | 'error' | 'cause' | 'lastOutput'>,
): (status: RunnerStatus, error: string, cause?: FailureCause, lastOutput?: string) => RunnerResult {
  return (status, error, cause, lastOutput) => ({ ...base, status, error, ...(cause ? { cause } : {}), ...(lastOutput === undefined ? {} : { lastOutput }) });
}

/** One interface for every agent: Claude Code, Codex, a CLI by template, the scripted agent. */
export interface AgentRunner {
  readonly name: string;
  run(input: RunnerInput, onActivity?: (activity: RunnerActivity) => void): Promise<RunnerResult>;
}

/** A failed call's error with what the agent last printed, as the log and the reasons show it. */
export function failureDetail(result: Pick<RunnerResult, 'error' | 'lastOutput'>): string {
  return withLastOutput(result.error ?? '', result.lastOutput);
}
