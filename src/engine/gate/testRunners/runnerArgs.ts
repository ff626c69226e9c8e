import type { ShellWord } from './shellLine';

/** How a runner reads its arguments, as far as Taskloom needs to: which options take the next word as their value. */
export interface ArgGrammar {
  /** Options whose value may be the next word (`--config x`, `-k expr`); `--config=x` is read without this. */
  valued: ReadonlySet<string>;
  /** Options known to take no value, so a word after them is a positional. */
  flags: ReadonlySet<string>;
  /** Single-dash long options (go's `-run`): no `-abc` bundles of short flags. */
  singleDashLong?: boolean;
  /** Options end at the first positional (node: the rest are its files). */
  positionalsLast?: boolean;
}

export interface RunnerArgs {
  /** Options with their values, in order, as written. */
  options: ShellWord[];
  /** Test files, folders, globs, path patterns or packages. */
  positionals: ShellWord[];
  /**
   * A word after an option Taskloom does not know could be its value or a positional: `positionals`
   * is then a guess, and a selection that replaces the positionals is not offered.
   */
  ambiguous: boolean;
}

/** Splits a runner's arguments into options and positionals. */
export function splitArgs(words: readonly ShellWord[], grammar: ArgGrammar): RunnerArgs {
  const options: ShellWord[] = [];
  const positionals: ShellWord[] = [];
  let ambiguous = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const name = optionName(word.text, grammar);
    if (word.text === '--') {
      positionals.push(...words.slice(i + 1));
      break;
    }
    if (name === undefined) {
      if (grammar.positionalsLast) {
        positionals.push(...words.slice(i));
        break;
      }
      positionals.push(word);
      continue;
    }
    options.push(word);
    const next = words[i + 1];
    const takesNext = !word.text.includes('=') && next !== undefined && !next.text.startsWith('-');
    if (!takesNext || grammar.flags.has(name) || name.startsWith('--no-')) continue;
    if (grammar.valued.has(name)) {
      if (attachedShortValue(word.text, name)) continue;
      options.push(next);
      i++;
    } else {
      ambiguous = true;
    }
  }
  return { options, positionals, ambiguous };
}

/** `--name`, `-n`, or for bundled short flags (`-xvs`) the last letter's option; undefined for a positional. */
function optionName(text: string, grammar: ArgGrammar): string | undefined {
  if (!text.startsWith('-') || text === '-') return undefined;
  const name = text.split('=')[0]!;
  if (name.startsWith('--') || grammar.singleDashLong) return name;
  if (name.length > 2 && !grammar.valued.has(name.slice(0, 2))) return `-${name.at(-1)}`;
  return name.slice(0, 2);
}

/** `-kexpr`: the value is in the word itself. */
const attachedShortValue = (text: string, name: string): boolean => !text.startsWith('--') && name.length === 2 && text.length > 2;

/** The option words named by `names` (with their values) left out. */
export function withoutOptions(args: RunnerArgs, names: ReadonlySet<string>, grammar: ArgGrammar): ShellWord[] {
  const kept: ShellWord[] = [];
  for (let i = 0; i < args.options.length; i++) {
    const word = args.options[i]!;
    const name = optionName(word.text, grammar);
    if (name === undefined || !names.has(name)) {
      kept.push(word);
      continue;
    }
    const next = args.options[i + 1];
    if (!word.text.includes('=') && grammar.valued.has(name) && !attachedShortValue(word.text, name) && next && !next.text.startsWith('-')) i++;
  }
  return kept;
}

/** True when an option named in `names` is among the arguments. */
export const hasOption = (args: RunnerArgs, names: ReadonlySet<string>, grammar: ArgGrammar): boolean =>
  args.options.some((word) => names.has(optionName(word.text, grammar) ?? ''));
