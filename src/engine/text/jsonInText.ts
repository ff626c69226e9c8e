const MAX_SCAN_CHARS = 256 * 1024;
const MAX_TRIES = 500;

/**
 * The JSON values an agent's answer may be, in text that may hold more than that, most
 * trustworthy first: the whole text, the ```json fenced blocks (last first), the lines that are
 * a JSON object or array (last first), then balanced `{…}` spans ending at the last closing brace
 * (bounded: only the tail of the text, and a limited number of tries). Lazy, so a caller that
 * finds its answer early parses no further.
 */
export function* jsonInText(text: string): Generator<unknown> {
  const whole = tryParse(text.trim());
  if (whole.ok) yield whole.value;

  const fences = [...text.matchAll(/```(?:json)?\s*([\s\S]*?)```/g)];
  for (let i = fences.length - 1; i >= 0; i--) {
    const parsed = tryParse((fences[i]![1] ?? '').trim());
    if (parsed.ok) yield parsed.value;
  }

  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const parsed = tryParse(lines[i]!.trim());
    if (parsed.ok) yield parsed.value;
  }

  const tail = text.length > MAX_SCAN_CHARS ? text.slice(-MAX_SCAN_CHARS) : text;
  const end = tail.lastIndexOf('}');
  if (end < 0) return;
  let tries = 0;
  for (let start = tail.lastIndexOf('{', end); start >= 0 && tries < MAX_TRIES; start = start === 0 ? -1 : tail.lastIndexOf('{', start - 1)) {
    tries++;
    const parsed = tryParse(tail.slice(start, end + 1));
    if (parsed.ok) yield parsed.value;
  }
}

/** The JSON value an agent answered with (the first of jsonInText), or undefined when there is none. */
export function extractJson(text: string): unknown {
  for (const value of jsonInText(text)) return value;
  return undefined;
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text === '' || (!text.startsWith('{') && !text.startsWith('['))) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}
