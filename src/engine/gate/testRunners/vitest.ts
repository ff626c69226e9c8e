import { join } from 'node:path';
import { checkoutPaths } from './checkoutPaths';
import { runnerCommand, NOTHING_TO_RUN, type Invocation, type RunnerKind } from './invocation';
import { readJestJson } from './jestJsonReport';
import { clearReport, readReportFile } from './reportFiles';
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
    commandFor(selection, reportDir) {
      clearReport(join(reportDir, REPORT));
      const words = selectedWords(selection, invocation, args);
      if (!words) return NOTHING_TO_RUN;
      const report = ['--reporter=default', '--reporter=json', `--outputFile.json=${join(reportDir, REPORT)}`].map(ownWord);
      return runnerCommand(invocation, [...words, ...report]);
    },
    readReport(reportDir, _output, cwd) {
      const text = readReportFile(join(reportDir, REPORT));
      return text === undefined ? undefined : readJestJson(text, 'vitest', checkoutPaths(cwd));
    },
  };
}

/** vitest's words (its program first) for `selection`; undefined when it selects nothing. */
function selectedWords(selection: TestSelection, invocation: Invocation, args: RunnerArgs): ShellWord[] | undefined {
  const vitestWord = invocation.words[0]!;
  const forRunner = (files: string[]) => files.map((file) => ownWord(invocation.paths.forRunner(file)));
  if (selection.kind === 'related' && selection.changed.length > 0 && !args.ambiguous) {
    const options = args.options.filter((word) => word.text !== '--run');
    return [vitestWord, ownWord('related'), ownWord('--run'), ...options, ownWord('--passWithNoTests'), ...forRunner(selection.changed)];
  }
  if (selection.kind !== 'tests') return invocation.words;
  if (selection.tests.length === 0) return undefined;
  const pattern = namePattern(selection.tests);
  const files = testFilesOf(selection.tests);
  const head = invocation.words.slice(0, subcommandRun(invocation.words) ? 2 : 1);
  const byName = pattern === undefined ? [] : [ownWord('-t'), ownWord(pattern)];
  // vitest filters files by the words it is given: the tests' own files when the user's are known to be only that.
  const filters = files && !args.ambiguous ? forRunner(files) : args.positionals;
  return [...head, ...withoutOptions(args, NAME_PATTERN, GRAMMAR), ...byName, ...filters];
}
