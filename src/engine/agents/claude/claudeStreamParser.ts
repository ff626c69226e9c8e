import * as z from 'zod';
import type { RunnerActivity } from '../runner';
import { parseJsonObject } from '../parseJsonObject';
import { clipEnd, oneLine } from '../../text/clip';

/**
 * Incremental parser of `claude -p --output-format stream-json --verbose` output, one JSON
 * object per line. Pure and bounded: it keeps only what the runner needs for the result
 * (session, model, the result line's fields, the latest API error and rate-limit state, a
 * usage fallback), never the transcript, and turns each line into activity for the UI.
 *
 * Lines seen from Claude Code 2.1.332 (see test/fixtures/claude/transcript.jsonl):
 *   {"type":"system","subtype":"init","session_id","model","cwd","tools":[…],"permissionMode",…}
 *   {"type":"system","subtype":"status","status":"requesting"}            (with partial messages)
 *   {"type":"system","subtype":"api_retry","attempt","max_retries","retry_delay_ms",
 *      "error_status":429|401|500|null,"error":"rate_limit"|"authentication_failed"|…}
 *   {"type":"stream_event","event":{message_start|content_block_*|message_delta|message_stop}}
 *   {"type":"assistant","message":{"id","model","content":[text|tool_use|thinking],"usage"}}
 *      — an API failure is a synthetic one: "model":"<synthetic>", "error":"rate_limit",
 *        "is_api_error_message":true, "api_error_status":429, text "API Error: …"
 *   {"type":"user","message":{"content":[{"type":"tool_result","is_error"?,…}]}}
 *   {"type":"user","message":{"content":[{"type":"text",…}]},"uuid","isReplay":true}
 *      — a user message we wrote on stdin, echoed as claude takes it into the conversation
 *        (--replay-user-messages): at once for the prompt, at the next tool result mid-turn
 *   {"type":"rate_limit_event","rate_limit_info":{"status":"allowed"|"allowed_warning"|
 *      "rejected","resetsAt","rateLimitType",…}}                       (subscription logins)
 *   {"type":"result","subtype":"success"|"error_max_turns"|"error_during_execution"|…,
 *      "is_error","result","errors":[…],"num_turns","session_id","total_cost_usd",
 *      "usage":{input_tokens,output_tokens,cache_read_input_tokens,cache_creation_input_tokens},
 *      "modelUsage":{<model>:{inputTokens,…,costUSD}},
 *      "model_usage_since_last_result":{<model>:{…}},
 *      "api_error_status","api_error_type","terminal_reason","structured_output"?}
 *
 * On a resumed session `usage` and `model_usage_since_last_result` count this invocation
 * only, while `total_cost_usd` and `modelUsage` are cumulative for the whole session.
 */

export interface ClaudeTokenCounts {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface ClaudeResult {
  subtype: string;
  isError: boolean;
  /** The `result` text ('' when absent, e.g. error_max_turns). */
  text: string;
  /** The `errors` list of error subtypes, the first few. */
  errors: string[];
  numTurns?: number;
  sessionId?: string;
  /** `usage` of the result line: this invocation's main-loop tokens. */
  usage?: ClaudeTokenCounts;
  /** `total_cost_usd`: cumulative for the session when it was resumed. */
  totalCostUsd?: number;
  /** `model_usage_since_last_result` summed over models: this invocation's tokens and cost. */
  sinceLastResult?: ClaudeTokenCounts & { costUsd: number };
  /** `modelUsage` summed over models: cumulative for the session. */
  sessionUsage?: ClaudeTokenCounts & { costUsd: number };
  hasStructured: boolean;
  structured?: unknown;
  apiErrorStatus?: number;
  apiErrorType?: string;
  terminalReason?: string;
  permissionDenials: number;
}

export interface ClaudeApiError {
  status?: number;
  kind?: string;
  message?: string;
}

export interface ClaudeRateLimit {
  status: string;
  resetsAt?: number;
  rateLimitType?: string;
}

export interface ClaudeStreamState {
  sessionId?: string;
  /** Model from system/init (the resolved name, e.g. claude-opus-5-5). */
  model?: string;
  /** Tools the CLI offered to the model, from system/init. */
  tools?: string[];
  permissionMode?: string;
  /**
   * The first result line: the answer to our prompt. Claude Code may print more when it goes
   * on by itself (a background command finished); those only add their usage below.
   */
  result?: ClaudeResult;
  resultCount: number;
  /**
   * The id of the user message the latest line echoed (--replay-user-messages): claude took the
   * message we wrote into its conversation, and `replays` counts them.
   */
  lastReplay?: string;
  replays: number;
  /** Per-call usage (`model_usage_since_last_result`) of the result lines after the first. */
  laterResultsUsage?: ClaudeTokenCounts & { costUsd: number };
  /** `total_cost_usd` of the latest result line: the session's cost so far. */
  sessionCostUsd?: number;
  /** The latest API failure (an api_retry, a synthetic error message) not followed by a reply. */
  lastApiError?: ClaudeApiError;
  /** The latest rate-limit state; `rejectedRateLimit` keeps the last rejection. */
  rateLimit?: ClaudeRateLimit;
  rejectedRateLimit?: ClaudeRateLimit;
  /** Text of the latest assistant message with text (capped), for a failure without a result. */
  lastAssistantText?: string;
  assistantMessages: number;
  toolCalls: number;
  /** Tokens counted from the stream itself, for a call that ends without a result line. */
  streamedUsage: ClaudeTokenCounts;
  /** Lines that were not JSON objects with a `type` (a log line, a stack trace). */
  otherLines: number;
}

const MAX_ACTIVITY_CHARS = 300;
const MAX_TEXT_CHARS = 1_000_000;
const MAX_ERRORS = 8;
const MAX_REMEMBERED_IDS = 16;

const counts = z.looseObject({
  input_tokens: z.number().optional(),
  output_tokens: z.number().optional(),
  cache_read_input_tokens: z.number().nullish(),
  cache_creation_input_tokens: z.number().nullish(),
});

const modelCounts = z.looseObject({
  inputTokens: z.number().optional(),
  outputTokens: z.number().optional(),
  cacheReadInputTokens: z.number().optional(),
  cacheCreationInputTokens: z.number().optional(),
  costUSD: z.number().optional(),
});

const block = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  name: z.string().optional(),
  input: z.unknown().optional(),
  is_error: z.boolean().optional(),
  content: z.unknown().optional(),
});

const initLine = z.looseObject({
  session_id: z.string().optional(),
  model: z.string().optional(),
  tools: z.array(z.string()).optional(),
  permissionMode: z.string().optional(),
});

const apiRetryLine = z.looseObject({
  attempt: z.number().optional(),
  max_retries: z.number().optional(),
  retry_delay_ms: z.number().optional(),
  error_status: z.number().nullish(),
  error: z.string().nullish(),
});

const assistantLine = z.looseObject({
  message: z.looseObject({
    id: z.string().optional(),
    model: z.string().optional(),
    content: z.array(block).catch([]),
    usage: counts.nullish(),
  }),
  error: z.string().nullish(),
  is_api_error_message: z.boolean().optional(),
  api_error_status: z.number().nullish(),
  api_error_type: z.string().nullish(),
});

const userLine = z.looseObject({
  isReplay: z.boolean().optional(),
  uuid: z.string().optional(),
  message: z.looseObject({ content: z.union([z.string(), z.array(block)]).catch([]) }),
});

const rateLimitLine = z.looseObject({
  rate_limit_info: z.looseObject({
    status: z.string(),
    resetsAt: z.number().nullish(),
    rateLimitType: z.string().nullish(),
  }),
});

const resultLine = z.looseObject({
  subtype: z.string().catch('unknown'),
  is_error: z.boolean().catch(false),
  result: z.string().nullish(),
  errors: z.array(z.unknown()).nullish(),
  num_turns: z.number().optional(),
  session_id: z.string().optional(),
  total_cost_usd: z.number().optional(),
  usage: counts.nullish(),
  modelUsage: z.record(z.string(), modelCounts).nullish(),
  model_usage_since_last_result: z.record(z.string(), modelCounts).nullish(),
  structured_output: z.unknown().optional(),
  api_error_status: z.number().nullish(),
  api_error_type: z.string().nullish(),
  terminal_reason: z.string().nullish(),
  permission_denials: z.array(z.unknown()).nullish(),
});

const streamEvent = z.looseObject({
  event: z.looseObject({
    type: z.string(),
    message: z.looseObject({ id: z.string().optional(), usage: counts.nullish() }).optional(),
    usage: counts.nullish(),
  }),
});

export const ZERO_TOKENS: ClaudeTokenCounts = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
});

export class ClaudeStreamParser {
  private readonly s: ClaudeStreamState = {
    assistantMessages: 0,
    toolCalls: 0,
    resultCount: 0,
    replays: 0,
    streamedUsage: { ...ZERO_TOKENS },
    otherLines: 0,
  };
  /** The message whose usage is being counted from the stream (message_start … message_delta). */
  private streamedMessage?: { id?: string; counted: ClaudeTokenCounts };
  /** Recent messages already counted, so a message's several lines are counted once. */
  private readonly countedMessageIds: string[] = [];

  get state(): Readonly<ClaudeStreamState> {
    return this.s;
  }

  /** Parses one line of stdout (without its line ending); returns what it says happened. */
  push(line: string): RunnerActivity[] {
    const trimmed = line.trim();
    if (trimmed === '') return [];
    const event = parseJsonObject(trimmed);
    if (!event || typeof event.type !== 'string') {
      this.s.otherLines++;
      return [];
    }
    this.s.sessionId ??= typeof event.session_id === 'string' && event.session_id !== '' ? event.session_id : undefined;
    switch (event.type) {
      case 'system':
        return this.onSystem(event);
      case 'stream_event':
        this.onStreamEvent(event);
        return [];
      case 'assistant':
        return this.onAssistant(event);
      case 'user':
        return this.onUser(event);
      case 'rate_limit_event':
        return this.onRateLimit(event);
      case 'result':
        return this.onResult(event);
      default:
        return [];
    }
  }

  private onSystem(event: Record<string, unknown>): RunnerActivity[] {
    if (event.subtype === 'init') {
      const init = initLine.safeParse(event);
      if (!init.success) return [];
      this.s.model = init.data.model ?? this.s.model;
      this.s.tools = init.data.tools;
      this.s.permissionMode = init.data.permissionMode;
      const parts = [init.data.model && `model ${init.data.model}`, init.data.session_id && `session ${init.data.session_id}`];
      return [status(`claude started (${parts.filter(Boolean).join(', ')})`)];
    }
    if (event.subtype === 'api_retry') {
      const retry = apiRetryLine.safeParse(event);
      if (!retry.success) return [];
      const { attempt, max_retries: max, retry_delay_ms: delay, error_status: code, error } = retry.data;
      this.s.lastApiError = { status: code ?? undefined, kind: error ?? undefined };
      const what = [code ? `HTTP ${code}` : 'connection failure', error ? `(${error})` : ''].filter(Boolean).join(' ');
      return [status(`API error ${what}; retry ${attempt ?? '?'}/${max ?? '?'} in ${delay ?? '?'} ms`)];
    }
    if (event.subtype === 'compact_boundary') return [status('conversation compacted')];
    return [];
  }

  /** Partial messages (--include-partial-messages): only their usage is read, cheaply. */
  private onStreamEvent(event: Record<string, unknown>): void {
    // Deltas are most of the lines: only the two events that carry usage are validated.
    const type = (event.event as { type?: unknown } | undefined)?.type;
    if (type !== 'message_start' && type !== 'message_delta') return;
    const parsed = streamEvent.safeParse(event);
    if (!parsed.success) return;
    const e = parsed.data.event;
    if (e.type === 'message_start') {
      this.s.lastApiError = undefined; // the API answered again
      const counted = tokensOf(e.message?.usage);
      this.streamedMessage = { id: e.message?.id, counted };
      if (e.message?.id !== undefined) this.markCounted(e.message.id);
      addTokens(this.s.streamedUsage, counted);
    } else if (e.type === 'message_delta' && this.streamedMessage && e.usage) {
      // message_delta carries the final output count of the message (cumulative within it).
      const output = e.usage.output_tokens ?? 0;
      const extra = output - this.streamedMessage.counted.outputTokens;
      if (extra > 0) {
        this.s.streamedUsage.outputTokens += extra;
        this.streamedMessage.counted.outputTokens = output;
      }
    }
  }

  private markCounted(id: string): void {
    this.countedMessageIds.push(id);
    if (this.countedMessageIds.length > MAX_REMEMBERED_IDS) this.countedMessageIds.shift();
  }

  private onAssistant(event: Record<string, unknown>): RunnerActivity[] {
    const parsed = assistantLine.safeParse(event);
    if (!parsed.success) return [];
    const { message } = parsed.data;
    if (parsed.data.is_api_error_message || parsed.data.error) {
      const text = message.content.map((b) => b.text ?? '').join(' ').trim();
      this.s.lastApiError = {
        status: parsed.data.api_error_status ?? this.s.lastApiError?.status,
        kind: parsed.data.api_error_type ?? parsed.data.error ?? undefined,
        message: text === '' ? undefined : clipEnd(text, 2000),
      };
      return [status(text === '' ? `API error (${parsed.data.error ?? 'unknown'})` : activityLine(text))];
    }
    this.s.lastApiError = undefined; // the API answered again
    // One API message may come as several assistant lines (one per content block): count its
    // usage once, and only when the partial stream did not count it already.
    if (message.id !== undefined && !this.countedMessageIds.includes(message.id)) {
      this.markCounted(message.id);
      addTokens(this.s.streamedUsage, tokensOf(message.usage));
    }
    if (message.model && message.model !== '<synthetic>') this.s.model ??= message.model;
    this.s.assistantMessages++;
    const activities: RunnerActivity[] = [];
    for (const b of message.content) {
      if (b.type === 'text' && b.text && b.text.trim() !== '') {
        this.s.lastAssistantText = clipEnd(b.text, MAX_TEXT_CHARS);
        activities.push({ kind: 'text', message: activityLine(b.text) });
      } else if (b.type === 'tool_use' && b.name) {
        this.s.toolCalls++;
        activities.push({ kind: 'tool', message: describeToolUse(b.name, b.input) });
      }
    }
    return activities;
  }

  private onUser(event: Record<string, unknown>): RunnerActivity[] {
    const parsed = userLine.safeParse(event);
    if (!parsed.success) return [];
    if (parsed.data.isReplay && parsed.data.uuid) {
      this.s.lastReplay = parsed.data.uuid;
      this.s.replays++;
      return [];
    }
    if (typeof parsed.data.message.content === 'string') return [];
    const activities: RunnerActivity[] = [];
    for (const b of parsed.data.message.content) {
      if (b.type === 'tool_result' && b.is_error) {
        activities.push(status(`tool error: ${activityLine(textOfContent(b.content))}`));
      }
    }
    return activities;
  }

  private onRateLimit(event: Record<string, unknown>): RunnerActivity[] {
    const parsed = rateLimitLine.safeParse(event);
    if (!parsed.success) return [];
    const info = parsed.data.rate_limit_info;
    const limit: ClaudeRateLimit = {
      status: info.status,
      ...(info.resetsAt != null ? { resetsAt: info.resetsAt } : {}),
      ...(info.rateLimitType != null ? { rateLimitType: info.rateLimitType } : {}),
    };
    this.s.rateLimit = limit;
    if (limit.status === 'rejected') this.s.rejectedRateLimit = limit;
    if (limit.status === 'allowed') return [];
    return [status(`rate limit ${describeRateLimit(limit)}`)];
  }

  private onResult(event: Record<string, unknown>): RunnerActivity[] {
    const parsed = resultLine.safeParse(event);
    if (!parsed.success) return [];
    const r = parsed.data;
    const result: ClaudeResult = {
      subtype: r.subtype,
      isError: r.is_error,
      text: clipEnd(r.result ?? '', MAX_TEXT_CHARS),
      errors: (r.errors ?? []).slice(0, MAX_ERRORS).map((e) => clipEnd(typeof e === 'string' ? e : JSON.stringify(e), 2000)),
      hasStructured: r.structured_output !== undefined && r.structured_output !== null,
      permissionDenials: r.permission_denials?.length ?? 0,
      ...(r.num_turns !== undefined ? { numTurns: r.num_turns } : {}),
      ...(r.session_id ? { sessionId: r.session_id } : {}),
      ...(r.usage ? { usage: tokensOf(r.usage) } : {}),
      ...(r.total_cost_usd !== undefined ? { totalCostUsd: r.total_cost_usd } : {}),
      ...(r.model_usage_since_last_result ? { sinceLastResult: sumModelUsage(r.model_usage_since_last_result) } : {}),
      ...(r.modelUsage ? { sessionUsage: sumModelUsage(r.modelUsage) } : {}),
      ...(r.api_error_status != null ? { apiErrorStatus: r.api_error_status } : {}),
      ...(r.api_error_type != null ? { apiErrorType: r.api_error_type } : {}),
      ...(r.terminal_reason != null ? { terminalReason: r.terminal_reason } : {}),
    };
    if (result.hasStructured) result.structured = r.structured_output;
    this.s.resultCount++;
    if (result.totalCostUsd !== undefined) this.s.sessionCostUsd = result.totalCostUsd;
    if (this.s.result) {
      if (result.sinceLastResult) {
        const sum = (this.s.laterResultsUsage ??= { ...ZERO_TOKENS, costUsd: 0 });
        addTokens(sum, result.sinceLastResult);
        sum.costUsd += result.sinceLastResult.costUsd;
      }
      return [status(`another result: ${result.subtype}${result.isError ? ' (error)' : ''}`)];
    }
    this.s.result = result;
    if (!this.s.model && r.modelUsage) this.s.model = Object.keys(r.modelUsage)[0];
    const cost = result.totalCostUsd === undefined ? '' : `, $${result.totalCostUsd.toFixed(4)} for the session`;
    return [status(`finished: ${result.subtype}${result.isError ? ' (error)' : ''}, ${result.numTurns ?? '?'} turns${cost}`)];
  }
}

function tokensOf(u: z.infer<typeof counts> | null | undefined): ClaudeTokenCounts {
  return {
    inputTokens: u?.input_tokens ?? 0,
    outputTokens: u?.output_tokens ?? 0,
    cacheReadTokens: u?.cache_read_input_tokens ?? 0,
    cacheWriteTokens: u?.cache_creation_input_tokens ?? 0,
  };
}

function sumModelUsage(byModel: Record<string, z.infer<typeof modelCounts>>): ClaudeTokenCounts & { costUsd: number } {
  const total = { ...ZERO_TOKENS, costUsd: 0 };
  for (const m of Object.values(byModel)) {
    total.inputTokens += m.inputTokens ?? 0;
    total.outputTokens += m.outputTokens ?? 0;
    total.cacheReadTokens += m.cacheReadInputTokens ?? 0;
    total.cacheWriteTokens += m.cacheCreationInputTokens ?? 0;
    total.costUsd += m.costUSD ?? 0;
  }
  return total;
}

function addTokens(into: ClaudeTokenCounts, add: ClaudeTokenCounts): void {
  into.inputTokens += add.inputTokens;
  into.outputTokens += add.outputTokens;
  into.cacheReadTokens += add.cacheReadTokens;
  into.cacheWriteTokens += add.cacheWriteTokens;
}

/** A short description of a tool call: `Write src/a.ts`, `Bash: npm test`, `TodoWrite: 2/5 done`. */
export function describeToolUse(name: string, input: unknown): string {
  const args = input !== null && typeof input === 'object' ? (input as Record<string, unknown>) : {};
  const str = (key: string) => (typeof args[key] === 'string' ? (args[key] as string) : undefined);
  const target = str('file_path') ?? str('notebook_path') ?? str('path');
  if (name === 'Bash' && str('command')) return activityLine(`Bash: ${str('command')}`);
  if ((name === 'Grep' || name === 'Glob') && str('pattern')) return activityLine(`${name} ${str('pattern')}${target ? ` in ${target}` : ''}`);
  if (target) return activityLine(`${name} ${target}`);
  if (name === 'TodoWrite' && Array.isArray(args.todos)) {
    const todos = args.todos.filter((t): t is Record<string, unknown> => t !== null && typeof t === 'object');
    const current = todos.find((t) => t.status === 'in_progress');
    const done = todos.filter((t) => t.status === 'completed').length;
    const now = typeof current?.content === 'string' ? ` — now: ${current.content}` : '';
    return activityLine(`TodoWrite: ${done}/${todos.length} done${now}`);
  }
  // A sub-agent (Task, Agent) by what it was asked, a web tool by its address or query.
  const about = str('description') ?? str('url') ?? str('query') ?? str('prompt');
  if (about) return activityLine(`${name}: ${about}`);
  return name;
}

function describeRateLimit(limit: ClaudeRateLimit): string {
  const type = limit.rateLimitType ? ` (${limit.rateLimitType})` : '';
  const reset = limit.resetsAt ? `, resets ${new Date(limit.resetsAt * 1000).toISOString()}` : '';
  return `${limit.status}${type}${reset}`;
}

function textOfContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((c) => (c && typeof c === 'object' && typeof (c as { text?: unknown }).text === 'string' ? (c as { text: string }).text : '')).join(' ');
  }
  return '';
}

const status = (message: string): RunnerActivity => ({ kind: 'status', message: activityLine(message) });

const activityLine = (text: string): string => oneLine(text, MAX_ACTIVITY_CHARS);
