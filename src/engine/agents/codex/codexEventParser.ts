import type { RunnerActivity } from '../runner';
import { parseJsonObject } from '../parseJsonObject';
import { clipEnd } from '../../text/clip';

/**
 * Incremental parser of `codex exec --json` output (one JSON object per line). Pure: it only
 * keeps what the runner needs (thread id, last cumulative usage, last agent message, the
 * failure) in bounded memory, and turns each line into activity for the watchdog and the UI.
 *
 * The events seen from codex-cli 0.171 (see test/fixtures/codex/transcript.jsonl):
 *   {"type":"thread.started","thread_id":"<uuid>"}
 *   {"type":"turn.started"}
 *   {"type":"item.started"|"item.updated"|"item.completed","item":{"id","type",…}}
 *      item types: agent_message {text}, reasoning {text}, command_execution {command,
 *      aggregated_output, exit_code, status}, file_change {changes:[{path,kind}], status},
 *      mcp_tool_call, web_search, todo_list {items}, error {message} (a non-fatal warning)
 *   {"type":"turn.completed","usage":{"input_tokens","cached_input_tokens",
 *      "cache_write_input_tokens","output_tokens","reasoning_output_tokens"}}
 *      — usage is CUMULATIVE over the whole thread (a resumed thread continues the count);
 *        input_tokens includes the cached ones, output_tokens includes reasoning.
 *   {"type":"turn.failed","error":{"message"}}
 *   {"type":"error","message"} — also printed for transient trouble ("Reconnecting... 1/5").
 */

/** Token counts as codex reports them (cumulative per thread). */
export interface CodexUsage {
  inputTokens: number;
  cachedInputTokens: number;
  cacheWriteInputTokens: number;
  outputTokens: number;
  reasoningOutputTokens: number;
}

export const ZERO_CODEX_USAGE: CodexUsage = Object.freeze({
  inputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteInputTokens: 0,
  outputTokens: 0,
  reasoningOutputTokens: 0,
});

export interface CodexParseState {
  threadId?: string;
  turnsStarted: number;
  turnsCompleted: number;
  /** Usage of the last `turn.completed` (cumulative for the thread). */
  usage?: CodexUsage;
  /** Text of the last completed agent message. */
  lastAgentMessage?: string;
  /** Message of the last `turn.failed` after the last `turn.completed`. */
  turnFailure?: string;
  /** Top-level `error` events, the last few, newest last. */
  errors: string[];
  /** Lines that were not codex JSON events (a stack trace, a log line). */
  otherLines: number;
}

/** What one line meant. */
export interface ParsedLine {
  /** The event's `type`, or undefined when the line was not a codex event. */
  type?: string;
  activities: RunnerActivity[];
}

const MAX_ERRORS = 8;
const MAX_ACTIVITY_CHARS = 400;
/** The final answer is kept whole up to this size; a larger one is cut (its head is kept). */
const MAX_MESSAGE_CHARS = 1_000_000;

export class CodexEventParser {
  private readonly s: CodexParseState = { turnsStarted: 0, turnsCompleted: 0, errors: [], otherLines: 0 };

  get state(): Readonly<CodexParseState> {
    return this.s;
  }

  /** Parses one line of stdout (without its line ending). */
  push(line: string): ParsedLine {
    const trimmed = line.trim();
    if (trimmed === '') return { activities: [] };
    const event = parseJsonObject(trimmed);
    if (!event || typeof event.type !== 'string') {
      this.s.otherLines++;
      return { activities: [] };
    }
    const type = event.type;
    const activities: RunnerActivity[] = [];
    switch (type) {
      case 'thread.started': {
        if (typeof event.thread_id === 'string') this.s.threadId = event.thread_id;
        activities.push(status(`codex thread ${this.s.threadId ?? '?'}`));
        break;
      }
      case 'turn.started':
        this.s.turnsStarted++;
        activities.push(status('turn started'));
        break;
      case 'turn.completed': {
        this.s.turnsCompleted++;
        this.s.turnFailure = undefined;
        const usage = readUsage(event.usage);
        if (usage) this.s.usage = usage;
        activities.push(status(`turn completed${usage ? ` (thread total: ${usage.inputTokens} in, ${usage.outputTokens} out)` : ''}`));
        break;
      }
      case 'turn.failed': {
        const message = errorMessage(event.error) ?? 'turn failed';
        this.s.turnFailure = message;
        activities.push(status(`turn failed: ${message}`));
        break;
      }
      case 'error': {
        const message = typeof event.message === 'string' ? event.message : errorMessage(event.error) ?? 'error';
        this.s.errors.push(clipEnd(message, 4000));
        if (this.s.errors.length > MAX_ERRORS) this.s.errors.shift();
        activities.push(status(`error: ${message}`));
        break;
      }
      case 'item.started':
      case 'item.updated':
      case 'item.completed': {
        const item = isObject(event.item) ? event.item : undefined;
        if (item) activities.push(...this.onItem(type, item));
        break;
      }
      default:
        // An event type this parser does not know (a newer codex): still activity.
        activities.push(status(type));
    }
    return { type, activities };
  }

  private onItem(type: string, item: Record<string, unknown>): RunnerActivity[] {
    const done = type === 'item.completed';
    switch (item.type) {
      case 'agent_message': {
        const text = typeof item.text === 'string' ? item.text : '';
        if (done) this.s.lastAgentMessage = text.length > MAX_MESSAGE_CHARS ? text.slice(0, MAX_MESSAGE_CHARS) : text;
        return done ? [{ kind: 'text', message: cut(text) }] : [];
      }
      case 'reasoning':
        return done && typeof item.text === 'string' ? [status(`thinking: ${item.text}`)] : [];
      case 'command_execution': {
        const command = typeof item.command === 'string' ? unwrapShell(item.command) : '?';
        if (!done) return type === 'item.started' ? [tool(`$ ${command}`)] : [];
        const code = typeof item.exit_code === 'number' ? item.exit_code : undefined;
        return [tool(`$ ${command} → ${code === undefined ? String(item.status ?? 'done') : `exit ${code}`}`)];
      }
      case 'file_change': {
        if (!done) return [];
        const changes = Array.isArray(item.changes) ? item.changes : [];
        const list = changes
          .filter(isObject)
          .map((c) => `${kindLetter(c.kind)} ${String(c.path ?? '?')}`)
          .join(', ');
        return [tool(`${item.status === 'failed' ? 'edit failed' : 'edited'}: ${list || '(no files)'}`)];
      }
      case 'mcp_tool_call':
        return type === 'item.started' || done
          ? [tool(`mcp ${String(item.server ?? '?')}.${String(item.tool ?? '?')}${done ? ` (${String(item.status ?? 'done')})` : ''}`)]
          : [];
      case 'web_search':
        return done ? [tool(`web search: ${String(item.query ?? '')}`)] : [];
      case 'todo_list': {
        const items = Array.isArray(item.items) ? item.items.filter(isObject) : [];
        const open = items.filter((i) => !i.completed).length;
        return [status(`plan: ${items.length - open}/${items.length} done`)];
      }
      case 'error':
        // Non-fatal: e.g. "Model metadata for `x` not found. Defaulting to fallback metadata".
        return done ? [status(`warning: ${String(item.message ?? '')}`)] : [];
      default:
        return done ? [status(`${String(item.type ?? 'item')} done`)] : [];
    }
  }
}

/** `after − before`, field by field, never negative (a thread whose count was reset). */
export function usageDelta(after: CodexUsage, before: CodexUsage): CodexUsage {
  const d = (a: number, b: number) => Math.max(0, a - b);
  return {
    inputTokens: d(after.inputTokens, before.inputTokens),
    cachedInputTokens: d(after.cachedInputTokens, before.cachedInputTokens),
    cacheWriteInputTokens: d(after.cacheWriteInputTokens, before.cacheWriteInputTokens),
    outputTokens: d(after.outputTokens, before.outputTokens),
    reasoningOutputTokens: d(after.reasoningOutputTokens, before.reasoningOutputTokens),
  };
}

/** Reads a codex usage object (`turn.completed.usage`, or a rollout's `total_token_usage`). */
export function readUsage(value: unknown): CodexUsage | undefined {
  if (!isObject(value)) return undefined;
  const n = (key: string) => {
    const v = value[key];
    return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0;
  };
  if (typeof value.input_tokens !== 'number' && typeof value.output_tokens !== 'number') return undefined;
  return {
    inputTokens: n('input_tokens'),
    cachedInputTokens: n('cached_input_tokens'),
    cacheWriteInputTokens: n('cache_write_input_tokens'),
    outputTokens: n('output_tokens'),
    reasoningOutputTokens: n('reasoning_output_tokens'),
  };
}

function errorMessage(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (isObject(value) && typeof value.message === 'string') return value.message;
  return undefined;
}

/**
 * The command as the agent wrote it: codex runs each one as `/bin/bash -lc '<command>'`, which
 * says nothing in a transcript.
 */
export function unwrapShell(command: string): string {
  const wrapped = /^(?:\S*\/)?(?:ba|z|da)?sh -l?c (.+)$/s.exec(command.trim());
  if (!wrapped) return command;
  const inner = wrapped[1]!;
  const quoted = /^'((?:[^']|'\\'')*)'$/s.exec(inner) ?? /^"((?:[^"\\]|\\.)*)"$/s.exec(inner);
  if (!quoted) return inner;
  return inner.startsWith("'") ? quoted[1]!.replaceAll("'\\''", "'") : quoted[1]!.replace(/\\(.)/g, '$1');
}

function kindLetter(kind: unknown): string {
  switch (kind) {
    case 'add':
      return 'A';
    case 'delete':
      return 'D';
    case 'update':
      return 'M';
    default:
      return String(kind ?? '?');
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const cut = (text: string) => clipEnd(text, MAX_ACTIVITY_CHARS);
const status = (message: string): RunnerActivity => ({ kind: 'status', message: cut(message) });
const tool = (message: string): RunnerActivity => ({ kind: 'tool', message: cut(message) });
