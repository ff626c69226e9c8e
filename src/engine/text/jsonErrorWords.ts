// Why a text is not JSON, in words that point at the place without quoting it.

/**
 * Where and why `text` is not JSON, without quoting it: Node's message carries a snippet of the
 * text, and a file a caller names need not be one it may read (a scenario path from a model).
 */
export function describeJsonError(text: string, err: SyntaxError): string {
  const reason = err.message
    .replace(/ in JSON at position \d+.*$/s, '')
    .replace(/, (?:\.\.\.)?".*is not valid JSON$/s, '');
  // Node 20's messages often carry no position ("Unexpected token ..."), so find it ourselves.
  let offset = jsonErrorOffset(text);
  if (offset < 0) offset = Number(/at position (\d+)/.exec(err.message)?.[1] ?? -1);
  if (offset < 0) return `invalid JSON: ${reason}`;
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `invalid JSON at line ${line}, column ${column}: ${reason}`;
}

/** Offset of the first JSON syntax error in `text`, or -1 if there is none. */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const LITERAL = /true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const stop = Symbol('stop');
  const fail = (): never => {
    throw stop;
  };
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const string = (): void => {
    i++;
    while (i < text.length) {
      const ch = text[i]!;
      if (ch === '"') {
        i++;
        return;
      }
      if (ch === '\\') {
        const next = text[i + 1] ?? '';
        if (next !== '' && '"\\/bfnrt'.includes(next)) i += 2;
        else if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) i += 6;
        else fail();
        continue;
      }
      if (ch < ' ') fail();
      i++;
    }
    fail();
  };
  const value = (): void => {
    ws();
    const ch = text[i];
    if (ch === '{' || ch === '[') {
      const close = ch === '{' ? '}' : ']';
      i++;
      ws();
      if (text[i] === close) {
        i++;
        return;
      }
      for (;;) {
        if (close === '}') {
          ws();
          if (text[i] !== '"') fail();
          string();
          ws();
          if (text[i] !== ':') fail();
          i++;
        }
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === close) {
          i++;
          return;
        } else fail();
      }
    }
    if (ch === '"') return string();
    LITERAL.lastIndex = i;
    const literal = LITERAL.exec(text);
    if (!literal) fail();
    i += literal![0].length;
  };
  try {
    value();
    ws();
    if (i < text.length) fail();
    return -1;
  } catch (err) {
    if (err === stop) return i;
    throw err;
  }
}
