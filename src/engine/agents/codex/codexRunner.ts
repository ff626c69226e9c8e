import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunnerStatus } from '../../domain/events';
import { ZERO_USAGE, type TokenUsage } from '../../domain/usage';
import type { ProcessResult } from '../../process/processGroup';
import { extractJson } from '../../text/jsonInText';
import { CALL_MARKER_VAR, newCallMarker } from '../../process/markedProcesses';
import { activityEmitter, callLimitMessage, callLimitMs, runAgentProcess, stuckMessage } from '../agentProcess';
import { failureOf, type AccessLevel, type AgentRunner, type RunnerActivity, type RunnerInput, type RunnerResult } from '../runner';
import { CodexEventParser, usageDelta, ZERO_CODEX_USAGE, type CodexUsage } from './codexEventParser';
import { costOf, priceOf } from './codexPrices';
import { readThreadSummary } from './codexSessions';
import { RecentMap } from '../recentMap';
import type { ProgramNeeds } from '../../process/launcher';
import { apiHosts, homeOf, programFolder } from '../programFiles';
import { sandboxCheckArgs, sandboxCheckFailure, sandboxFor, writeLimitArgs } from './codexSandbox';

export interface CodexRunnerOptions {
  /** The codex executable (default `codex`, looked up on PATH). */
  binaryPath?: string;
  /** The complete environment of codex (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Extra `-c key=value` overrides, e.g. a model provider: `model_providers.x.base_url="…"`. */
  configOverrides?: string[];
  /** Time between SIGINT, SIGTERM and SIGKILL when stopping codex. */
  killGraceMs?: number;
}

export const CODEX_NOT_ON_PATH =
  '`codex` is not on PATH — install the Codex CLI (npm i -g @openai/codex) or set taskloom.codex.path';

/** Shown as the model when none was asked for and codex's choice could not be read. */
export const CODEX_DEFAULT_MODEL = 'codex-default';

const LAST_LINES = 20;
const MAX_REMEMBERED_THREADS = 500;

const QUOTA_PATTERN = /\b429\b|too many requests|rate[ _-]?limit|usage[ _-]?limit|quota|insufficient_quota/i;
const AUTH_PATTERN =
  /\b401\b|unauthori[sz]ed|invalid[ _-]?api[ _-]?key|incorrect api key|missing environment variable|not logged in|codex login|authentication|\b403 forbidden/i;

/**
 * The arguments of `codex` for a call (the prompt is NOT among them: it goes to stdin, `-`).
 *   new thread: exec --json --skip-git-repo-check [-m M] [--output-schema F] [-c override…] [-c marker] [-c variable…] <sandbox> -
 *   resumed:    exec resume --json --skip-git-repo-check [-m M] [--output-schema F] [-c override…] [-c marker] [-c variable…] <sandbox> <thread id> -
 * where <sandbox> is codex's own: `--sandbox <mode>` (after the user's overrides, `-c sandbox_mode="<mode>"`
 * for `exec resume`, which has no --sandbox flag) with, for a writing actor, the limits of its writes;
 * or, for a call inside Taskloom's sandbox, `--dangerously-bypass-approvals-and-sandbox`: codex's
 * bubblewrap cannot start nested, and codex documents the flag for "environments that are
 * externally sandboxed". It wins over any `sandbox_mode` of the user's overrides, so they cannot
 * turn the nested sandbox back on; Taskloom's sandbox bounds what the tools do.
 * The marker puts the call's id into the environment of codex's tools even under a restrictive
 * shell_environment_policy, so that they can be found and stopped after the call.
 */
export function codexArgs(
  input: Pick<RunnerInput, 'role' | 'access' | 'model' | 'resumeSessionId' | 'env' | 'confined'>,
  extra: { schemaFile?: string; configOverrides?: string[]; marker?: string; scratchDir?: string } = {},
): string[] {
  const common = [
    // Taskloom runs codex in worktrees it made; the check only refuses non-git folders.
    '--skip-git-repo-check',
    ...(input.model ? ['-m', input.model] : []),
    ...(extra.schemaFile ? ['--output-schema', extra.schemaFile] : []),
    ...(extra.configOverrides ?? []).flatMap((c) => ['-c', c]),
    ...(extra.marker ? ['-c', `shell_environment_policy.set.${CALL_MARKER_VAR}="${extra.marker}"`] : []),
    // The task's variables (TASKLOOM_PORT…) reach codex's tools the same way.
    ...Object.entries(input.env ?? {}).flatMap(([name, value]) => ['-c', `shell_environment_policy.set.${name}=${JSON.stringify(value)}`]),
  ];
  if (input.confined) {
    const sandbox = ['--dangerously-bypass-approvals-and-sandbox'];
    return input.resumeSessionId ? ['exec', 'resume', '--json', ...common, ...sandbox, input.resumeSessionId, '-'] : ['exec', '--json', ...common, ...sandbox, '-'];
  }
  const limits = writeLimitArgs(input, extra.scratchDir);
  if (input.resumeSessionId) {
    // The sandbox after the user's overrides, so they cannot widen it.
    return ['exec', 'resume', '--json', ...common, ...limits, '-c', `sandbox_mode="${sandboxFor(input)}"`, input.resumeSessionId, '-'];
  }
  return ['exec', '--json', ...common, ...limits, '--sandbox', sandboxFor(input), '-'];
}

/**
 * What codex needs in a sandbox: its package (with its platform binary), the call's folder (the
 * output schema), its own state (CODEX_HOME, else ~/.codex: login, sessions) and its API's host: the
 * base URL of OPENAI_BASE_URL or of a provider the overrides name, else OpenAI's.
 */
export function codexNeeds(binary: string, env: NodeJS.ProcessEnv, overrides: readonly string[], callDir: string): ProgramNeeds {
  const providerUrls = overrides.flatMap((o) => /base_url\s*=\s*"?([^"\s]+)"?/.exec(o)?.[1] ?? []);
  const hosts = [...new Set([...apiHosts(env.OPENAI_BASE_URL, providerUrls.length ? [] : CODEX_API_HOSTS), ...providerUrls.flatMap((u) => apiHosts(u, []))])];
  return {
    readable: [...programFolder(binary, env.PATH), callDir],
    writable: [env.CODEX_HOME || join(homeOf(env), '.codex')],
    hosts,
  };
}

/** OpenAI's API, and where a ChatGPT login works and refreshes. */
const CODEX_API_HOSTS = ['api.openai.com:443', 'chatgpt.com:443', 'auth.openai.com:443'];

/** Sorts a failure message of codex into a runner status. */
export function classifyCodexFailure(message: string): Extract<RunnerStatus, 'quota' | 'auth' | 'agent_error'> {
  if (QUOTA_PATTERN.test(message)) return 'quota';
  if (AUTH_PATTERN.test(message)) return 'auth';
  return 'agent_error';
}

/** Runs the Codex CLI (`codex exec --json`) as a child process group per call. */
export class CodexRunner implements AgentRunner {
  readonly name = 'codex';
  /** Cumulative usage of the threads this runner saw, to report resumed calls as deltas. */
  private readonly threadUsage = new RecentMap<string, CodexUsage>(MAX_REMEMBERED_THREADS);
  /** Modes of codex's own sandbox seen to run a command here (see sandboxCheckArgs). */
  private readonly workingSandboxes = new Set<AccessLevel>();

  constructor(private readonly options: CodexRunnerOptions = {}) {}

  async run(input: RunnerInput, onActivity?: (activity: RunnerActivity) => void): Promise<RunnerResult> {
    const startedAt = performance.now();
    const env: NodeJS.ProcessEnv = { ...(this.options.env ?? process.env), ...input.env };
    // Codex puts its tools and its shell snapshot in sessions of their own, out of reach of a
    // group kill: they carry this marker and are swept after the call.
    const marker = newCallMarker();
    const binary = this.options.binaryPath ?? 'codex';
    const requestedModel = input.model;

    // Before the call: where a resumed thread's count stands.
    let baseline: CodexUsage = ZERO_CODEX_USAGE;
    let baselineKnown = true;
    if (input.resumeSessionId) {
      const remembered = this.threadUsage.get(input.resumeSessionId);
      const recorded = remembered ? undefined : (await readThreadSummary(env, input.resumeSessionId)).usage;
      baselineKnown = remembered !== undefined || recorded !== undefined;
      baseline = remembered ?? recorded ?? ZERO_CODEX_USAGE;
    }

    // The call's own folder: the output schema, and the scratch space (TMPDIR) of an actor that
    // writes in codex's sandbox (in Taskloom's, that sandbox decides where temporary files go).
    const callDir = mkdtempSync(join(tmpdir(), 'taskloom-codex-'));
    let schemaFile: string | undefined;
    if (input.outputSchema) {
      schemaFile = join(callDir, 'output-schema.json');
      writeFileSync(schemaFile, JSON.stringify(input.outputSchema));
    }
    let scratchDir: string | undefined;
    if (!input.confined && sandboxFor(input) === 'workspace-write') {
      scratchDir = join(callDir, 'tmp');
      mkdirSync(scratchDir);
    }

    const parser = new CodexEventParser();
    const emit = activityEmitter(onActivity);

    let proc: ProcessResult;
    try {
      const failedCheck = input.confined ? undefined : await this.checkSandbox(input, { binary, env, marker, scratchDir, emit });
      if (failedCheck) {
        const durationMs = Math.round(performance.now() - startedAt);
        const fail = failureOf({ text: '', usage: { ...ZERO_USAGE }, model: requestedModel ?? CODEX_DEFAULT_MODEL, durationMs });
        return fail('spawn_failed', sandboxCheckFailure(sandboxFor(input), failedCheck), 'exited', lastOutput(failedCheck));
      }
      emit({ kind: 'status', message: `codex ${input.resumeSessionId ? `resume ${input.resumeSessionId}` : 'exec'} (${input.confined ? "in Taskloom's sandbox" : sandboxFor(input)})` });
      if (!baselineKnown) {
        emit({ kind: 'status', message: `usage of thread ${input.resumeSessionId} before this call is unknown: its whole total is counted` });
      }
      proc = await runAgentProcess({
        launch: input.launch,
        needs: codexNeeds(binary, env, this.options.configOverrides ?? [], callDir),
        command: binary,
        args: codexArgs(input, { schemaFile, configOverrides: this.options.configOverrides, marker, scratchDir }),
        cwd: input.cwd,
        env,
        marker,
        agentName: 'codex',
        input: input.prompt,
        idleTimeoutMs: input.idleTimeoutMs,
        signal: input.signal,
        killGraceMs: this.options.killGraceMs,
        onStdoutLine: (line) => parser.push(line).activities.forEach(emit),
        emit,
      });
    } finally {
      rmSync(callDir, { recursive: true, force: true });
    }

    const state = parser.state;
    const threadId = state.threadId ?? input.resumeSessionId;

    // After the call: its usage is the growth of the thread's cumulative count. When no turn
    // completed (a failure after some requests), codex's own record of the thread is asked.
    let cumulative = state.usage;
    let model = requestedModel;
    if (threadId && (cumulative === undefined || model === undefined)) {
      const summary = await readThreadSummary(env, threadId);
      cumulative ??= summary.usage;
      model ??= summary.model;
    }
    model ??= CODEX_DEFAULT_MODEL;
    if (threadId && cumulative) this.threadUsage.set(threadId, cumulative);
    const usage = toTokenUsage(model, cumulative ? usageDelta(cumulative, baseline) : ZERO_CODEX_USAGE);
    if (usage.costUsd > 0 && !priceOf(model).known) {
      emit({ kind: 'status', message: `no list price for model ${model}: its cost is estimated at the default price` });
    }

    const durationMs = Math.round(performance.now() - startedAt);
    const base = {
      text: state.lastAgentMessage ?? '',
      usage,
      model,
      durationMs,
      ...(threadId ? { sessionId: threadId } : {}),
    };
    const fail = failureOf(base);

    if (proc.spawnError) {
      if (proc.spawnErrorCode !== 'ENOENT') return fail('spawn_failed', proc.spawnError);
      const notFound =
        binary === 'codex' ? CODEX_NOT_ON_PATH : `\`${binary}\` was not found — install the Codex CLI (npm i -g @openai/codex) or fix taskloom.codex.path`;
      return fail('spawn_failed', notFound, 'not_installed');
    }
    if (proc.sandboxFailure) return fail('spawn_failed', proc.sandboxFailure);
    if (proc.cancelled) return fail('cancelled', 'cancelled');
    if (proc.idleTimedOut) {
      return fail('idle_timeout', stuckMessage('codex', input.idleTimeoutMs), 'stuck', lastOutput(proc));
    }
    if (proc.timedOut) return fail('agent_error', callLimitMessage('codex', callLimitMs(input.idleTimeoutMs)), 'timed_out', lastOutput(proc));
    if (state.turnsCompleted > 0 && state.turnFailure === undefined) {
      const result: RunnerResult = { ...base, status: 'ok' };
      if (input.outputSchema) {
        const structured = extractJson(result.text);
        if (structured !== undefined) result.structured = structured;
      }
      return result;
    }
    if (state.turnFailure !== undefined) {
      return fail(classifyCodexFailure(state.turnFailure), `codex: ${state.turnFailure}`, undefined, lastOutput(proc));
    }
    const lastError = state.errors[state.errors.length - 1];
    if (lastError !== undefined) {
      return fail(classifyCodexFailure(lastError), `codex: ${lastError}`, undefined, lastOutput(proc));
    }
    // No turn ended at all: codex failed before or outside the model (bad flags, a crash).
    const stderr = proc.stderr;
    const how = proc.signal ? `was killed by ${proc.signal}` : `exited with code ${proc.exitCode}`;
    const status: RunnerStatus = QUOTA_PATTERN.test(stderr) ? 'quota' : AUTH_PATTERN.test(stderr) ? 'auth' : 'crashed';
    return fail(status, `codex ${how} without completing a turn`, 'exited', lastOutput(proc));
  }

  /**
   * Unconfined, codex's own sandbox must be able to run the agent's commands, or the call would
   * end "ok" with every command failed (see sandboxCheckArgs): the check that failed, run once per
   * sandbox mode until one passes. A check that could not start or was cancelled counts as none:
   * the call that follows reports that as well.
   */
  private async checkSandbox(
    input: RunnerInput,
    call: { binary: string; env: NodeJS.ProcessEnv; marker: string; scratchDir: string | undefined; emit: (activity: RunnerActivity) => void },
  ): Promise<ProcessResult | undefined> {
    const sandbox = sandboxFor(input);
    if (this.workingSandboxes.has(sandbox)) return undefined;
    const check = await runAgentProcess({
      launch: input.launch,
      command: call.binary,
      args: sandboxCheckArgs(input, call.scratchDir),
      cwd: input.cwd,
      env: call.env,
      marker: call.marker,
      agentName: 'codex',
      idleTimeoutMs: input.idleTimeoutMs,
      signal: input.signal,
      killGraceMs: this.options.killGraceMs,
      onStdoutLine: () => {},
      emit: call.emit,
    });
    if (check.exitCode === 0) this.workingSandboxes.add(sandbox);
    return check.exitCode === 0 || check.spawnError !== undefined || check.cancelled ? undefined : check;
  }
}

/** Codex's counts → Taskloom's: input without the cached part, cached input as cache reads. */
export function toTokenUsage(model: string | undefined, u: CodexUsage): TokenUsage {
  const tokens = {
    inputTokens: Math.max(0, u.inputTokens - u.cachedInputTokens - u.cacheWriteInputTokens),
    outputTokens: u.outputTokens,
    cacheReadTokens: u.cachedInputTokens,
    cacheWriteTokens: u.cacheWriteInputTokens,
  };
  const total = tokens.inputTokens + tokens.outputTokens + tokens.cacheReadTokens + tokens.cacheWriteTokens;
  return total === 0 ? { ...ZERO_USAGE } : { ...tokens, costUsd: costOf(model, tokens) };
}

function lastOutput(proc: ProcessResult): string {
  return proc.output.trimEnd().split('\n').slice(-LAST_LINES).join('\n');
}
