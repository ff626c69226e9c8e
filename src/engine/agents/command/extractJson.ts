const MAX_SCAN_CHARS = 256 * 1024;
const MAX_TRIES = 500;

/**
 * Finds the JSON value an agent answered with, in text that may hold more than that: the whole
 * text, else the last ```json fenced block, else the last line that is a JSON object or array,
 * else the last balanced `{…}` span that parses. Returns undefined when there is none.
 */
export function extractJson(text: string): unknown {
  const whole = tryParse(text.trim());
  if (whole.ok) return whole.value;

  const fences = [...text.matchAll(/```(?:json)?[ \t]*\r?\n([\s\S]*?)```/g)];
  for (let i = fences.length - 1; i >= 0; i--) {
    const parsed = tryParse((fences[i]![1] ?? '').trim());
    if (parsed.ok) return parsed.value;
  }

  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (!line.startsWith('{') && !line.startsWith('[')) continue;
    const parsed = tryParse(line);
    if (parsed.ok) return parsed.value;
  }

  // The last closing brace, matched back to an opening one that makes a parseable span
  // (bounded: only the tail of the text, and a limited number of tries).
  const tail = text.length > MAX_SCAN_CHARS ? text.slice(-MAX_SCAN_CHARS) : text;
  const end = tail.lastIndexOf('}');
  if (end < 0) return undefined;
  let tries = 0;
  for (let start = tail.lastIndexOf('{', end); start >= 0 && tries < MAX_TRIES; start = start === 0 ? -1 : tail.lastIndexOf('{', start - 1)) {
    tries++;
    const parsed = tryParse(tail.slice(start, end + 1));
    if (parsed.ok) return parsed.value;
  }
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
