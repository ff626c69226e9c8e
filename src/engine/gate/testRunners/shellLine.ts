import { shellQuote } from '../../text/shellQuote';

/** A word of a command line: as written (quotes and globs kept, to be given back to the shell) and as the program receives it. */
export interface ShellWord {
  raw: string;
  text: string;
}

/**
 * The parts of a command line `a && b && c`, each a simple command of plain words; null for
 * anything else. Only what can be read without running it is followed: a pipe, `||`, `;`, `&`, a
 * redirection, a variable, a substitution, a subshell, a brace, `~`, a comment or a new line make
 * the line one Taskloom does not take apart (the gate then judges it by its exit code). Globs
 * (`test/*.js`) stay in `raw`, for the shell to expand as it would have.
 */
export function parseAndChain(line: string): ShellWord[][] | null {
  const parts: ShellWord[][] = [[]];
  let i = 0;
  while (i < line.length) {
    const c = line[i]!;
    if (c === ' ' || c === '\t') {
      i++;
    } else if (line.startsWith('&&', i)) {
      if (parts.at(-1)!.length === 0) return null;
      parts.push([]);
      i += 2;
    } else {
      const word = readWord(line, i);
      if (!word) return null;
      parts.at(-1)!.push({ raw: line.slice(i, word.end), text: word.text });
      i = word.end;
    }
  }
  return parts.every((part) => part.length > 0) ? parts : null;
}

/** Characters that end a word or mean more than a plain word when unquoted. */
const UNQUOTED_SPECIAL = /[|;&<>()$`{}\n\r\\'"]/;

function readWord(line: string, start: number): { text: string; end: number } | null {
  if (/[~#!]/.test(line[start]!)) return null;
  let text = '';
  let i = start;
  while (i < line.length && line[i] !== ' ' && line[i] !== '\t') {
    const c = line[i]!;
    if (c === "'") {
      const close = line.indexOf("'", i + 1);
      if (close < 0) return null;
      text += line.slice(i + 1, close);
      i = close + 1;
    } else if (c === '"') {
      const quoted = readDoubleQuoted(line, i + 1);
      if (!quoted) return null;
      text += quoted.text;
      i = quoted.end;
    } else if (c === '\\') {
      const next = line[i + 1];
      if (next === undefined || next === '\n') return null;
      text += next;
      i += 2;
    } else if (line.startsWith('&&', i)) {
      break;
    } else if (UNQUOTED_SPECIAL.test(c)) {
      return null;
    } else {
      text += c;
      i++;
    }
  }
  return { text, end: i };
}

function readDoubleQuoted(line: string, from: number): { text: string; end: number } | null {
  let text = '';
  for (let i = from; i < line.length; i++) {
    const c = line[i]!;
    if (c === '"') return { text, end: i + 1 };
    if (c === '$' || c === '`') return null;
    if (c === '\\' && /["\\$`]/.test(line[i + 1] ?? '')) text += line[++i];
    else if (c === '\\' && line[i + 1] === '\n') return null;
    else text += c;
  }
  return null;
}

/** A word Taskloom adds to a command line. */
export const ownWord = (text: string): ShellWord => ({ raw: shellQuote(text), text });

/** A leading `NAME=value` of a simple command: an environment assignment the shell applies to it. */
export const isAssignment = (word: ShellWord): boolean => /^[A-Za-z_][A-Za-z0-9_]*=/.test(word.raw);

export const joinWords = (words: readonly ShellWord[]): string => words.map((word) => word.raw).join(' ');
