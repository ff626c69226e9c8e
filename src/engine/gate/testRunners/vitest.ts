import { join } from 'node:path';
import { pathWords, selectThenReport, type Invocation, type RunnerKind } from './invocation';
import { readJestJson } from './jestJsonReport';
import { reportFileReader } from './reportFiles';
import { hasOption, splitArgs, withoutOptions, type ArgGrammar, type RunnerArgs } from './runnerArgs';
import { ownWord, type ShellWord } from './shellLine';
import { namePattern, testFilesOf } from './testSelection';
import type { RecognisedRunner, TestSelection, TestSelectionKind } from './types';

const REPORT = 'vitest.json';

/** vitest's options with a required value, and its flags; one with an optional value (`--changed [since]`) followed by a word leaves the positionals unknown. */
const GRAMMAR: ArgGrammar = {
  valued: new Set([
    '-r', '--root', '-c', '--config', '-t', '--testNamePattern', '--dir', '--reporter', '--outputFile', '--mode', '--workspace', '--browser',
    '--pool', '--maxWorkers', '--minWorkers', '--environment', '--shard', '--sequence', '--testTimeout', '--hookTimeout', '--bail', '--retry',
    '--diff', '--exclude', '--project', '--slowTestThreshold', '--teardownTimeout', '--maxConcurrency', '--attachmentsDir', '--configLoader',
  ]),
  flags: new Set([
    '-u', '--update', '--hideSkippedTests', '--coverage', '--isolate', '--globals', '--dom', '--fileParallelism', '--passWithNoTests',
    '--logHeapUsage', '--allowOnly', '--dangerouslyIgnoreUnhandledErrors', '--expandSnapshotDiff', '--disableConsoleIntercept', '--typecheck',
    '--cache', '--expect', '--printConsoleTrace', '--includeTaskLocation', '--run', '--clearScreen',
  ]),
};
/** Options that write the report Taskloom needs elsewhere, or never end. */
const NOT_TAKEN_OVER = new Set(['--reporter', '--outputFile', '-w', '--watch', '--ui', '--open', '--api', '--mergeReports', '--standalone', '-v', '--version', '-h', '--help']);
const NAME_PATTERN = new Set(['-t', '--testNamePattern']);
/** vitest's JSON report into the report folder, beside its default output. */
const reportWords = (reportDir: string): ShellWord[] => ['--reporter=default', '--reporter=json', `--outputFile.json=${join(reportDir, REPORT)}`].map(ownWord);

/** `vitest run …` or `vitest … --run`: one run, never watch mode. */
const subcommandRun = (words: readonly ShellWord[]) => words[1]?.text === 'run';

export const vitest: RunnerKind = {
  name: 'vitest',
  starts: (words) => words[0]?.text === 'vitest' && (subcommandRun(words) || words.some((word) => word.text === '--run')),
  recognise(invocation) {
    const args = splitArgs(invocation.words.slice(subcommandRun(invocation.words) ? 2 : 1), GRAMMAR);
    return hasOption(args, NOT_TAKEN_OVER, GRAMMAR) ? undefined : vitestRunner(invocation, args);
  },
};

function vitestRunner(invocation: Invocation, args: RunnerArgs): RecognisedRunner {
  const selections = new Set<TestSelectionKind>(['all', 'tests']);
  if (!args.ambiguous) selections.add('related');
  return {
    runner: 'vitest',
    command: invocation.command,
    selections,
    commandFor: selectThenReport(invocation, REPORT, (selection) => selectedWords(selection, invocation, args), reportWords),
    readReport: reportFileReader(REPORT, (text, paths) => readJestJson(text, 'vitest', paths)),
  };
}

/** vitest's words (its program first) for `selection`; undefined when it selects nothing. */
function selectedWords(selection: TestSelection, invocation: Invocation, args: RunnerArgs): ShellWord[] | undefined {
  const vitestWord = invocation.words[0]!;
  if (selection.kind === 'related' && selection.changed.length > 0 && !args.ambiguous) {
    const options = args.options.filter((word) => word.text !== '--run');
    return [vitestWord, ownWord('related'), ownWord('--run'), ...options, ownWord('--passWithNoTests'), ...pathWords(invocation, selection.changed)];
  }
  if (selection.kind !== 'tests') return invocation.words;
  if (selection.tests.length === 0) return undefined;
  const pattern = namePattern(selection.tests);
  const files = testFilesOf(selection.tests);
  const head = invocation.words.slice(0, subcommandRun(invocation.words) ? 2 : 1);
  const byName = pattern === undefined ? [] : [ownWord('-t'), ownWord(pattern)];
  // vitest filters files by the words it is given: the tests' own files when the user's are known to be only that.
  const filters = files && !args.ambiguous ? pathWords(invocation, files) : args.positionals;
  return [...head, ...withoutOptions(args, NAME_PATTERN, GRAMMAR), ...byName, ...filters];
}
