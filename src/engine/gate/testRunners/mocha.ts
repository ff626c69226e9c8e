import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkoutPaths } from './checkoutPaths';
import { pathWords, selectThenReport, type Invocation, type RunnerKind } from './invocation';
import { readMochaFileConfig, type MochaFileConfig } from './mochaConfig';
import { isHookTitle, mochaReporterSource, readMochaReport } from './mochaReport';
import { reportFileReader } from './reportFiles';
import { hasOption, splitArgs, withoutOptions, type ArgGrammar, type RunnerArgs } from './runnerArgs';
import { ownWord, type ShellWord } from './shellLine';
import { findTestFiles } from './testFiles';
import { escapeRegExp, titlesOf } from './testSelection';
import type { RecognisedRunner, TestRef, TestSelection, TestSelectionKind } from './types';

const REPORTER = 'taskloom-mocha-reporter.cjs';
const REPORT = 'mocha.json';

/** mocha's own grammar (lib/cli/run-option-metadata.js): its list, string and number options take one word each. */
const GRAMMAR: ArgGrammar = {
  valued: new Set([
    '--extension', '--file', '--global', '--globals', '--ignore', '--exclude', '--node-option', '-n', '--reporter-option', '--reporter-options',
    '-O', '--require', '-r', '--spec', '--watch-files', '--watch-ignore', '--retries', '--jobs', '-j', '--config', '--fgrep', '-f', '--grep',
    '-g', '--package', '--reporter', '-R', '--ui', '-u', '--slow', '-s', '--timeout', '-t', '--timeouts',
  ]),
  flags: new Set([
    '--allow-uncaught', '--async-only', '-A', '--bail', '-b', '--check-leaks', '--color', '--colors', '-c', '--delay', '--diff', '--exit',
    '--fail-hook-affected-tests', '--pass-on-failing-test-suite', '--fail-zero', '--forbid-only', '--forbid-pending', '--full-trace',
    '--inline-diffs', '--parallel', '-p', '--posix-exit-codes', '--recursive', '--sort', '-S', '-C',
  ]),
};
/** Options that choose the reporter Taskloom needs, never end, run no tests, or turn a name selection inside out. */
const NOT_TAKEN_OVER = new Set(['--reporter', '-R', '--reporter-option', '--reporter-options', '-O', '--watch', '-w', '--dry-run', '--list-interfaces', '--list-reporters', '--invert', '-i', '--version', '-V', '--help', '-h']);
const GREP = new Set(['--grep', '-g', '--fgrep', '-f']);
const SPEC = new Set(['--spec']);

export const mocha: RunnerKind = {
  name: 'mocha',
  starts: (words) => words[0]?.text === 'mocha',
  recognise(invocation) {
    const args = splitArgs(invocation.words.slice(1), GRAMMAR);
    return hasOption(args, NOT_TAKEN_OVER, GRAMMAR) ? undefined : mochaRunner(invocation, args);
  },
};

function mochaRunner(invocation: Invocation, args: RunnerArgs): RecognisedRunner {
  const config = readMochaFileConfig(invocation.paths.cwd, { configFile: optionValue(args, '--config'), packageFile: optionValue(args, '--package') });
  const specs = [...args.positionals, ...valueWordsOf(args, '--spec')];
  // mocha adds the files it is given to those its configuration names: a choice of files is only possible when that names none.
  const choosesFiles = config !== undefined && config.spec.length === 0 && !args.ambiguous;
  const selections = new Set<TestSelectionKind>(['all', 'tests']);
  if (choosesFiles) selections.add('files');
  return {
    runner: 'mocha',
    command: invocation.command,
    selections,
    commandFor: selectThenReport(invocation, REPORT, (selection) => selectedWords(selection, invocation, args, choosesFiles), reportWords),
    readReport: reportFileReader(REPORT, readMochaReport),
    testFiles: async (cwd) => (config && !args.ambiguous ? findTestFiles(specsOrDefault(specs, config), fileRules(args, config), checkoutPaths(cwd)) : undefined),
  };
}

/** mocha reports through Taskloom's reporter module, written into the report folder. */
function reportWords(reportDir: string): ShellWord[] {
  writeFileSync(join(reportDir, REPORTER), mochaReporterSource(join(reportDir, REPORT)));
  return [ownWord('--reporter'), ownWord(join(reportDir, REPORTER))];
}

/** mocha's words (its program first) for `selection`; undefined when it selects nothing. */
function selectedWords(selection: TestSelection, invocation: Invocation, args: RunnerArgs, choosesFiles: boolean): ShellWord[] | undefined {
  const mochaWord = invocation.words[0]!;
  if (selection.kind === 'files' && choosesFiles) {
    if (selection.files.length === 0) return undefined;
    return [mochaWord, ...withoutOptions(args, SPEC, GRAMMAR), ...pathWords(invocation, selection.files)];
  }
  if (selection.kind !== 'tests') return invocation.words;
  if (selection.tests.length === 0) return undefined;
  const pattern = grepPattern(selection.tests);
  const options = withoutOptions(args, GREP, GRAMMAR);
  return [mochaWord, ...options, ...(pattern === undefined ? [] : [ownWord('--grep'), ownWord(pattern)]), ...args.positionals];
}

/** mocha greps a test's full title (its titles joined by spaces); a failed hook reruns every test of its suite; one at the root, all. */
function grepPattern(tests: readonly TestRef[]): string | undefined {
  const names: string[] = [];
  for (const test of tests) {
    const titles = titlesOf(test);
    if (!isHookTitle(titles.at(-1)!)) names.push(escapeRegExp(titles.join(' ')));
    else if (titles.length === 1) return undefined;
    else names.push(`${escapeRegExp(titles.slice(0, -1).join(' '))} .*`);
  }
  return `^(?:${names.join('|')})$`;
}

function fileRules(args: RunnerArgs, config: MochaFileConfig) {
  const extensions = [...new Set(['js', 'cjs', 'mjs', ...config.extension, ...valuesOf(args, '--extension')].map((ext) => ext.replace(/^\./, '')))];
  const recursive = config.recursive || args.options.some((word) => word.text === '--recursive');
  return {
    inFolder: extensions.map((ext) => (recursive ? `**/*.${ext}` : `*.${ext}`)),
    recursive,
    ignore: [...config.ignore, ...valuesOf(args, '--ignore'), ...valuesOf(args, '--exclude')],
  };
}

/** mocha's default spec is `./test`. */
function specsOrDefault(specs: ShellWord[], config: MochaFileConfig): ShellWord[] {
  const all = [...specs, ...config.spec.map(ownWord)];
  return all.length > 0 ? all : [ownWord('./test')];
}

/** The values given to option `name`, as words (`--spec=x` gives `x`). */
function valueWordsOf(args: RunnerArgs, name: string): ShellWord[] {
  const values: ShellWord[] = [];
  args.options.forEach((word, i) => {
    if (word.text.startsWith(`${name}=`)) values.push({ raw: word.raw.slice(word.raw.indexOf('=') + 1), text: word.text.slice(name.length + 1) });
    else if (word.text === name && args.options[i + 1]) values.push(args.options[i + 1]!);
  });
  return values;
}

const valuesOf = (args: RunnerArgs, name: string): string[] => valueWordsOf(args, name).map((word) => word.text);

/** `--config x` / `--no-config`: the file named, false when turned off, undefined when mocha looks for one. */
function optionValue(args: RunnerArgs, name: string): string | false | undefined {
  if (args.options.some((word) => word.text === `--no-${name.slice(2)}`)) return false;
  return valuesOf(args, name)[0];
}
