import type { RunnerStatus } from '../../domain/events';
import type { TokenUsage } from '../../domain/usage';
import type { ClaudeApiError, ClaudeResult, ClaudeStreamState } from './claudeStreamParser';

// Usage limits, rate limits, exhausted credit: the run should pause, not fail the task. In the
// words of Claude Code and the API ("You've hit your limit · resets 3pm", "Claude AI usage
// limit reached", "Credit balance is too low", "API Error: Request rejected (429)").
const QUOTA_PATTERN =
  /rate[ _-]?limit|usage limit|hit your (?:\w+ )?limit|quota|credit balance|out of (?:usage )?credits|spend limit|billing_error|\(429\)|429 too many/i;
const AUTH_PATTERN =
  /authentication|invalid (?:x-)?api[ _-]?key|not logged in|run \/login|oauth token|permission_error|unauthori[sz]ed|\(40[13]\)/i;

const QUOTA_KINDS = new Set(['rate_limit', 'rate_limit_error', 'billing_error']);
const AUTH_KINDS = new Set(['authentication_failed', 'authentication_error', 'permission_error']);

export interface ClaudeFailure {
  status: Extract<RunnerStatus, 'quota' | 'auth' | 'max_turns' | 'agent_error'>;
  reason: string;
}

/** Whether a result line says the call succeeded: `is_error` or another subtype is a failure, whatever the exit code. */
export function isSuccess(result: ClaudeResult): boolean {
  return !result.isError && result.subtype === 'success';
}

/** Sorts a failed result into a runner status, with the reason in the CLI's words. */
export function classifyFailedResult(result: ClaudeResult, state: Pick<ClaudeStreamState, 'rejectedRateLimit' | 'lastApiError'>): ClaudeFailure {
  const words = [result.text, ...result.errors].filter((s) => s.trim() !== '').join(' — ');
  const reason = words === '' ? `${result.subtype}${result.terminalReason ? ` (${result.terminalReason})` : ''}` : words;
  if (result.subtype === 'error_max_turns') return { status: 'max_turns', reason };

  // The result's own API error first; the stream's latest one only when the result names none
  // (a 429 that a retry got past must not make a later, unrelated failure a quota hit).
  const api: ClaudeApiError =
    result.apiErrorStatus !== undefined || result.apiErrorType !== undefined
      ? { status: result.apiErrorStatus, kind: result.apiErrorType }
      : result.terminalReason === 'api_error'
        ? (state.lastApiError ?? {})
        : {};
  if (api.status === 429 || (api.kind && QUOTA_KINDS.has(api.kind)) || state.rejectedRateLimit || QUOTA_PATTERN.test(words)) {
    return { status: 'quota', reason };
  }
  if (api.status === 401 || api.status === 403 || (api.kind && AUTH_KINDS.has(api.kind)) || AUTH_PATTERN.test(words)) {
    return { status: 'auth', reason };
  }
  return { status: 'agent_error', reason };
}

/**
 * The call ended without a result line (a crash, a kill): a rejected rate limit, an API
 * error or stderr may still tell a quota or an auth problem apart from a crash.
 */
export function classifyMissingResult(
  state: Pick<ClaudeStreamState, 'rejectedRateLimit' | 'lastApiError'>,
  stderr: string,
): Extract<RunnerStatus, 'quota' | 'auth' | 'crashed'> {
  const api = state.lastApiError ?? {};
  const text = `${api.message ?? ''}\n${stderr}`;
  if (state.rejectedRateLimit || api.status === 429 || (api.kind && QUOTA_KINDS.has(api.kind)) || QUOTA_PATTERN.test(text)) return 'quota';
  if (api.status === 401 || (api.kind && AUTH_KINDS.has(api.kind)) || AUTH_PATTERN.test(text)) return 'auth';
  return 'crashed';
}

export interface CallUsage {
  usage: TokenUsage;
  /** The session's cumulative cost after this call, when the result told it. */
  sessionCostUsd?: number;
  /** Set when the figures may include earlier calls of a resumed session. */
  caveat?: string;
}

/**
 * THIS call's tokens and dollars. Claude Code's result line mixes scopes on a resumed
 * session: `usage` and `model_usage_since_last_result` count this invocation, while
 * `total_cost_usd` and `modelUsage` are cumulative for the session. The per-invocation
 * figures are used; without them (an older CLI) the cost is the growth of the session's
 * total since the previous call this runner saw.
 */
export function callUsage(
  state: Pick<ClaudeStreamState, 'result' | 'streamedUsage' | 'laterResultsUsage' | 'sessionCostUsd'>,
  resumed: { previousSessionCostUsd?: number } | undefined,
): CallUsage {
  const result = state.result;
  const later = state.laterResultsUsage;
  if (!result) {
    // Killed before the result line: what the stream showed (cost unknown).
    return { usage: { ...state.streamedUsage, costUsd: 0 } };
  }
  const sessionCostUsd = state.sessionCostUsd;
  if (result.sinceLastResult) {
    const own = result.sinceLastResult;
    const usage: TokenUsage = {
      inputTokens: own.inputTokens + (later?.inputTokens ?? 0),
      outputTokens: own.outputTokens + (later?.outputTokens ?? 0),
      cacheReadTokens: own.cacheReadTokens + (later?.cacheReadTokens ?? 0),
      cacheWriteTokens: own.cacheWriteTokens + (later?.cacheWriteTokens ?? 0),
      costUsd: roundCost(own.costUsd + (later?.costUsd ?? 0)),
    };
    return { usage, ...(sessionCostUsd !== undefined ? { sessionCostUsd } : {}) };
  }
  const tokens = result.usage ?? state.streamedUsage;
  let costUsd = sessionCostUsd ?? 0;
  let caveat: string | undefined;
  if (resumed) {
    if (resumed.previousSessionCostUsd !== undefined) costUsd = Math.max(0, costUsd - resumed.previousSessionCostUsd);
    else caveat = 'the cost of this resumed call may include the earlier calls of its session';
  }
  return {
    usage: { ...tokens, costUsd: roundCost(costUsd) },
    ...(sessionCostUsd !== undefined ? { sessionCostUsd } : {}),
    ...(caveat ? { caveat } : {}),
  };
}

/** Float noise off (0.010016399999999998 → 0.0100164); a nano-dollar is far below any price. */
function roundCost(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}
