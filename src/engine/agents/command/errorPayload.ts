import { parseJsonObject } from '../parseJsonObject';
import { clipEnd } from '../../text/clip';

/** Keys an error object may have besides `error`; an object with any other key is an answer, not an error. */
const ERROR_OBJECT_KEYS = new Set(['error', 'message', 'code', 'status', 'type', 'details', 'request_id']);
const MAX_MESSAGE_CHARS = 500;

/**
 * The error a command reported as its final answer while exiting 0, or undefined when the
 * answer is not one. Many CLIs exit 0 and print the failure as JSON: Claude Code's result
 * (`{"is_error": true, "result": "API Error: …"}`), an API error (`{"type": "error", "error":
 * {…}}`, `{"error": {"message": …}}`). Only the whole answer or its last line counts: an
 * error object quoted in the middle of an answer is not the command failing.
 */
export function errorPayload(text: string): string | undefined {
  const trimmed = text.trim();
  const lastLine = trimmed.split('\n').at(-1)?.trim() ?? '';
  for (const candidate of [trimmed, lastLine]) {
    const value = parseJsonObject(candidate);
    if (value) return errorOf(value);
  }
  return undefined;
}

function errorOf(value: Record<string, unknown>): string | undefined {
  if (value.is_error === true) return describe(value.result ?? value.error ?? value.message ?? value.subtype) ?? 'is_error: true';
  if (value.type === 'error') return describe(value.error ?? value.message) ?? 'type: error';
  const keys = Object.keys(value);
  if ('error' in value && value.error !== null && value.error !== false && keys.every((k) => ERROR_OBJECT_KEYS.has(k))) {
    return describe(value.error) ?? describe(value.message) ?? 'error';
  }
  return undefined;
}

function describe(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') return clip(value);
  if (typeof value === 'object' && !Array.isArray(value)) {
    const { message, type } = value as { message?: unknown; type?: unknown };
    if (typeof message === 'string' && message !== '') return clip(typeof type === 'string' ? `${type}: ${message}` : message);
  }
  return clip(JSON.stringify(value));
}

const clip = (text: string): string => clipEnd(text, MAX_MESSAGE_CHARS);
