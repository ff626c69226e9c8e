import { clipEnd } from '../../text/clip';
import { randomUUID } from 'node:crypto';
import type { ProcessResult } from '../../process/processGroup';
import { activityEmitter, callLimitMessage, callLimitMs, runAgentProcess, stuckMessage } from '../agentProcess';
import { failureOf, type AgentRunner, type RunnerActivity, type RunnerInput, type RunnerResult } from '../runner';
import { accessFor, claudeArgs, claudeNotFoundMessage } from './claudeArgs';
import { callUsage, classifyFailedResult, classifyMissingResult, isSuccess } from './claudeOutcome';
import { ClaudeStreamParser } from './claudeStreamParser';
import { ClaudeConversation } from './claudeConversation';
import { RecentMap } from '../recentMap';
import { newCallMarker } from '../../process/markedProcesses';
import { join } from 'node:path';
import type { ProgramNeeds } from '../../process/launcher';
import { apiHosts, homeOf, programFolder } from '../programFiles';

export interface ClaudeRunnerOptions {
  /** The claude executable (default `claude`, looked up on PATH): taskloom.claude.path. */
  binaryPath?: string;
  /** The complete environment of claude (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Time between SIGINT, SIGTERM and SIGKILL when stopping claude. */
  killGraceMs?: number;
  /**
   * Claude Code's own retries of a failed API request (CLAUDE_CODE_MAX_RETRIES). Its default
   * is 10 with exponential backoff: a 429 or a 401 takes about 3 minutes to be reported.
   */
  maxRetries?: number;
  /** Agentic turns per call (`--max-turns`); beyond it the call ends `max_turns`. */
  maxTurns?: number;
}

/**
 * What claude needs in a sandbox: its package, its own state (CLAUDE_CONFIG_DIR, else ~/.claude and
 * ~/.claude.json, where its login and sessions are: resume needs them) and its API's host.
 */
export function claudeNeeds(binary: string, env: NodeJS.ProcessEnv): ProgramNeeds {
  const home = homeOf(env);
  return {
    readable: programFolder(binary, env.PATH),
    writable: [env.CLAUDE_CONFIG_DIR || join(home, '.claude')],
    writableFiles: env.CLAUDE_CONFIG_DIR ? [] : [join(home, '.claude.json')],
    hosts: apiHosts(env.ANTHROPIC_BASE_URL, CLAUDE_API_HOSTS),
  };
}

/** The Messages API, and where a subscription login refreshes its token. */
const CLAUDE_API_HOSTS = ['api.anthropic.com:443', 'console.anthropic.com:443'];

/** Shown as the model when claude never said which one it used. */
export const CLAUDE_DEFAULT_MODEL = 'claude-default';

const LAST_LINES = 20;
const DEFAULT_KILL_GRACE_MS = 2000;
const LAST_STDOUT_LINES = 5;
const LAST_ACTIVITIES = 10;
const MAX_LINE_CHARS = 500;
const MAX_REMEMBERED_SESSIONS = 500;
/**
 * After its result line claude normally exits at once, but it stays (and later starts a new
 * turn by itself) while a command it put in the background runs. The call is over at the
 * result: past this grace claude is stopped, which also stops its background commands.
 */
const EXIT_AFTER_RESULT_MS = 2000;

/**
 * Runs Claude Code (`claude -p --input-format stream-json --output-format stream-json`) as a child
 * process group per call; what a person says while it works joins the turn (ClaudeConversation).
 */
export class ClaudeRunner implements AgentRunner {
  readonly name = 'claude';
  /** Cumulative cost of the sessions this runner saw, for a CLI that reports no per-call figures. */
  private readonly sessionCosts = new RecentMap<string, number>(MAX_REMEMBERED_SESSIONS);

  constructor(private readonly options: ClaudeRunnerOptions = {}) {}

  async run(input: RunnerInput, onActivity?: (activity: RunnerActivity) => void): Promise<RunnerResult> {
    const startedAt = performance.now();
    const binary = this.options.binaryPath ?? 'claude';
    const env: NodeJS.ProcessEnv = { ...(this.options.env ?? process.env), ...input.env };
    if (this.options.maxRetries !== undefined) env.CLAUDE_CODE_MAX_RETRIES = String(this.options.maxRetries);
    const newSessionId = input.resumeSessionId ? undefined : randomUUID();
    const afterResult = new AbortController();
    let exitTimer: NodeJS.Timeout | undefined;
    let exited = false;

    const parser = new ClaudeStreamParser();
    const conversation = new ClaudeConversation(input.prompt, input.messages);
    const recent: string[] = [];
    const notify = activityEmitter(onActivity);
    const emit = (a: RunnerActivity) => {
      recent.push(`${a.kind}: ${a.message}`);
      if (recent.length > LAST_ACTIVITIES) recent.shift();
      notify(a);
    };
    const onStdoutLine = (line: string) => {
      parser.push(line).forEach(emit);
      const answeredAll = conversation.heard(parser.state);
      if (answeredAll && parser.state.result && exitTimer === undefined && !exited) {
        exitTimer = setTimeout(() => afterResult.abort(), EXIT_AFTER_RESULT_MS);
      }
    };

    const lastOutput = (proc: ProcessResult, withActivity: boolean) => describeLastOutput(proc, withActivity ? recent : undefined);
    emit({
      kind: 'status',
      message: `claude ${input.resumeSessionId ? `--resume ${input.resumeSessionId}` : `--session-id ${newSessionId}`} (${accessFor(input)})`,
    });
    const proc = await runAgentProcess({
      launch: input.launch,
      needs: claudeNeeds(binary, env),
      command: binary,
      args: claudeArgs(input, { sessionId: newSessionId, maxTurns: this.options.maxTurns }),
      cwd: input.cwd,
      env,
      // Claude Code runs each Bash command in a session of its own: swept after the call by this marker.
      marker: newCallMarker(),
      agentName: 'claude',
      input: conversation,
      idleTimeoutMs: input.idleTimeoutMs,
      signal: AbortSignal.any([input.signal, afterResult.signal]),
      killGraceMs: this.options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
      onStdoutLine,
      emit,
    });
    exited = true;
    clearTimeout(exitTimer);
    conversation.close();

    // stdout first: what the CLI said decides, not its exit code.
    const state = parser.state;
    const result = state.result;
    const sessionId = state.sessionId ?? result?.sessionId ?? input.resumeSessionId;
    const resumed = input.resumeSessionId ? { previousSessionCostUsd: this.sessionCosts.get(input.resumeSessionId) } : undefined;
    const { usage, sessionCostUsd, caveat } = callUsage(state, resumed);
    if (caveat) emit({ kind: 'status', message: caveat });
    if (sessionId && sessionCostUsd !== undefined) this.sessionCosts.set(sessionId, sessionCostUsd);

    const base = {
      text: result?.text ?? '',
      usage,
      model: state.model ?? input.model ?? CLAUDE_DEFAULT_MODEL,
      durationMs: Math.round(performance.now() - startedAt),
      ...(sessionId ? { sessionId } : {}),
    };
    const fail = failureOf(base);

    if (proc.spawnError) {
      if (proc.spawnErrorCode === 'ENOENT') return fail('spawn_failed', claudeNotFoundMessage(this.options.binaryPath), 'not_installed');
      return fail('spawn_failed', proc.spawnError);
    }
    if (proc.sandboxFailure) return fail('spawn_failed', proc.sandboxFailure);
    // Our own stops come before the result line: stopped, claude still prints one (an
    // error_during_execution). Only a success means the work was done before the stop (claude
    // was lingering over a background command).
    if (input.signal.aborted) return fail('cancelled', 'cancelled');
    if (proc.idleTimedOut && !(result && isSuccess(result))) {
      return fail('idle_timeout', stuckMessage('claude', input.idleTimeoutMs), 'stuck', lastOutput(proc, true));
    }
    if (proc.timedOut && !(result && isSuccess(result))) {
      return fail('agent_error', callLimitMessage('claude', callLimitMs(input.idleTimeoutMs)), 'timed_out', lastOutput(proc, true));
    }
    if (result) {
      if (isSuccess(result)) {
        return { ...base, status: 'ok', ...(result.hasStructured ? { structured: result.structured } : {}) };
      }
      const failure = classifyFailedResult(result, state);
      return fail(failure.status, `claude: ${failure.reason}`, undefined, lastOutput(proc, false));
    }
    const unknownFlag = proc.stderr.match(/unknown option '(--[\w-]+)'/)?.[1];
    if (unknownFlag) {
      // An older Claude Code than the permission profiles need: running it without them would be less safe, not better.
      return fail('spawn_failed', `this Claude Code does not know ${unknownFlag}, which Taskloom's permission profiles need — update it (npm i -g @anthropic-ai/claude-code@latest)`);
    }
    const how = proc.signal ? `was killed by ${proc.signal}` : `exited with code ${proc.exitCode}`;
    return fail(classifyMissingResult(state, proc.stderr), `claude ${how} without a result`, 'exited', lastOutput(proc, true));
  }
}

/**
 * For the human who reads why a call failed: what the agent was last doing (the activity,
 * readable where stream-json lines are kilobytes of JSON), the end of stderr, and stdout's
 * last lines only when it printed nothing we understood.
 */
function describeLastOutput(proc: ProcessResult, activity: string[] | undefined): string | undefined {
  const parts: string[] = [];
  if (activity && activity.length > 0) parts.push(`activity:\n${activity.join('\n')}`);
  const stderr = tail(proc.stderr, LAST_LINES);
  if (stderr !== '') parts.push(`stderr:\n${stderr}`);
  // Only our own "claude --session-id …" line: claude said nothing we understood.
  if (activity && activity.length <= 1) {
    const stdout = tail(proc.stdout, LAST_STDOUT_LINES);
    if (stdout !== '') parts.push(`stdout:\n${stdout}`);
  }
  return parts.length === 0 ? undefined : parts.join('\n');
}

function tail(text: string, lines: number): string {
  return text
    .trimEnd()
    .split('\n')
    .slice(-lines)
    .filter((l) => l.trim() !== '')
    .map((l) => clipEnd(l, MAX_LINE_CHARS))
    .join('\n');
}
