import { posix } from 'node:path';

/** One simple command of a gate command line: what it starts, and where. */
export interface SimpleCommand {
  /** Its words, quotes removed: the program, then its arguments (leading `NAME=value` assignments and redirections left out). */
  argv: string[];
  /** The folder it runs in, relative to where the line starts (`cd web && npm test`: `web`); null after a `cd` only the shell can follow. */
  dir: string | null;
}

type Token = { word: string } | { op: string };

const SEPARATORS = new Set(['&&', '||', ';', '|', '&', '\n']);
/** Words that open a compound command: what runs inside is only known by running it. */
const RESERVED = new Set(['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'case', 'esac', 'while', 'until', 'for', 'in', '{', '}', '!', '[[', ']]', 'function', 'select']);

/**
 * The simple commands of a gate command (run with `sh -c`), split at `&&`, `||`, `;`, `|`, `&`
 * and new lines, so the doctor can look for the programs it would start without running it. Null
 * when the line holds more than simple commands (a subshell, a command substitution, a compound
 * command, a here-document, an unclosed quote): what those start is only known by running them.
 */
export function simpleCommands(line: string): SimpleCommand[] | null {
  const tokens = tokenize(line);
  if (!tokens) return null;
  const commands: SimpleCommand[] = [];
  let dir: string | null = '';
  let words: string[] = [];
  let skipTarget = false;
  const finish = (): boolean => {
    const start = words.findIndex((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
    const argv = start < 0 ? [] : words.slice(start);
    words = [];
    if (argv.length === 0) return true;
    if (RESERVED.has(argv[0]!)) return false;
    commands.push({ argv, dir });
    if (argv[0] === 'cd') dir = dir === null ? null : changedDir(dir, argv[1]);
    return true;
  };
  for (const token of tokens) {
    if ('word' in token) {
      if (skipTarget) skipTarget = false;
      else words.push(token.word);
    } else if (token.op === 'redirect') {
      skipTarget = true;
    } else if (SEPARATORS.has(token.op) && !finish()) {
      return null;
    }
  }
  return finish() ? commands : null;
}

/** True when the word is what the shell will run as it is: no variable, no glob, no `~`. */
export const isLiteralWord = (word: string): boolean => !/[$*?]|^~/.test(word);

function changedDir(dir: string, to: string | undefined): string | null {
  if (to === undefined || to === '-' || to.startsWith('/') || !isLiteralWord(to)) return null;
  const joined = posix.normalize(posix.join(dir, to));
  return joined === '.' ? '' : joined.startsWith('..') ? null : joined.replace(/\/$/, '');
}

/** Words (quotes removed) and operators; null on syntax these checks do not follow. */
function tokenize(line: string): Token[] | null {
  const tokens: Token[] = [];
  let word = '';
  let inWord = false;
  const endWord = () => {
    if (inWord) tokens.push({ word });
    word = '';
    inWord = false;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const close = line.indexOf("'", i + 1);
      if (close < 0) return null;
      word += line.slice(i + 1, close);
      inWord = true;
      i = close;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '`' || (line[j] === '$' && line[j + 1] === '(')) return null;
        if (line[j] === '\\' && j + 1 < line.length) j++;
        word += line[j];
      }
      if (j >= line.length) return null;
      inWord = true;
      i = j;
    } else if (c === '\\') {
      if (line[i + 1] !== undefined && line[i + 1] !== '\n') {
        word += line[i + 1];
        inWord = true;
      }
      i++;
    } else if (c === '`' || c === '(' || c === ')' || (c === '$' && line[i + 1] === '(')) {
      return null;
    } else if (c === '#' && !inWord) {
      const eol = line.indexOf('\n', i);
      if (eol < 0) break;
      i = eol - 1;
    } else if (c === ' ' || c === '\t') {
      endWord();
    } else if (c === '<' || c === '>') {
      if (c === '<' && line[i + 1] === '<') return null;
      // `2>file`: the digits were the descriptor, not a word.
      if (inWord && /^\d+$/.test(word)) inWord = false;
      endWord();
      while (line[i + 1] === '>' || line[i + 1] === '&' || line[i + 1] === '|') i++;
      tokens.push({ op: 'redirect' });
    } else if (SEPARATORS.has(c)) {
      endWord();
      const pair = line.slice(i, i + 2);
      const op = pair === '&&' || pair === '||' ? pair : c;
      tokens.push({ op });
      i += op.length - 1;
    } else {
      word += c;
      inWord = true;
    }
  }
  endWord();
  return tokens;
}
