import { join } from 'node:path';
import { pathWords, selectThenReport, type Invocation, type RunnerKind } from './invocation';
import { readJestJson } from './jestJsonReport';
import { reportFileReader } from './reportFiles';
import { hasOption, splitArgs, withoutOptions, type ArgGrammar, type RunnerArgs } from './runnerArgs';
import { ownWord, type ShellWord } from './shellLine';
import { namePattern, testFilesOf } from './testSelection';
import type { RecognisedRunner, TestSelection, TestSelectionKind } from './types';

const REPORT = 'jest.json';

/** jest's single-value options and its flags; its list options (`--roots a b`) are neither, so a word after one leaves the positionals unknown. */
const GRAMMAR: ArgGrammar = {
  valued: new Set([
    '-c', '--config', '--cacheDirectory', '--changedSince', '--collectCoverageFrom', '--coverageDirectory', '--coverageProvider',
    '--coverageThreshold', '--filter', '--globalSetup', '--globalTeardown', '--globals', '--haste', '--maxConcurrency', '-w', '--maxWorkers',
    '--moduleNameMapper', '--notifyMode', '--openHandlesTimeout', '--outputFile', '--preset', '--prettierPath', '--resolver', '--rootDir',
    '--runner', '--seed', '--shard', '--testEnvironment', '--env', '--testEnvironmentOptions', '--testFailureExitCode', '-t',
    '--testNamePattern', '--testResultsProcessor', '--testRunner', '--testSequencer', '--testTimeout', '--transform',
    '--workerGracefulExitTimeout',
  ]),
  flags: new Set([
    '--all', '--automock', '--cache', '--changedFilesWithAncestor', '--ci', '--clearMocks', '--collectCoverage', '--color', '--colors',
    '--coverage', '--debug', '--detectLeaks', '--detectOpenHandles', '--errorOnDeprecated', '-e', '--expand', '--forceExit', '--injectGlobals',
    '--lastCommit', '--logHeapUsage', '--noStackTrace', '--notify', '-o', '--onlyChanged', '-f', '--onlyFailures', '--passWithNoTests',
    '--randomize', '--resetMocks', '--resetModules', '--restoreMocks', '-i', '--runInBand', '--runTestsByPath', '--showSeed', '--silent',
    '--skipFilter', '--testLocationInResults', '-u', '--updateSnapshot', '--useStderr', '--verbose', '--waitForUnhandledRejections',
    '--watchman', '--workerThreads',
  ]),
};
/** Options that write the report Taskloom needs elsewhere, never end, or run no tests. */
const NOT_TAKEN_OVER = new Set(['--json', '--outputFile', '--watch', '--watchAll', '--listTests', '--findRelatedTests', '--showConfig', '--clearCache', '--collectTests', '--version', '-h', '--help']);
const NAME_PATTERN = new Set(['-t', '--testNamePattern']);
/** jest's JSON report into the report folder, its own output left as it is. */
const reportWords = (reportDir: string): ShellWord[] => ['--json', `--outputFile=${join(reportDir, REPORT)}`].map(ownWord);

export const jest: RunnerKind = {
  name: 'jest',
  starts: (words) => words[0]?.text === 'jest',
  recognise(invocation) {
    const args = splitArgs(invocation.words.slice(1), GRAMMAR);
    return hasOption(args, NOT_TAKEN_OVER, GRAMMAR) ? undefined : jestRunner(invocation, args);
  },
};

function jestRunner(invocation: Invocation, args: RunnerArgs): RecognisedRunner {
  const selections = new Set<TestSelectionKind>(['all', 'tests']);
  if (!args.ambiguous) selections.add('related');
  return {
    runner: 'jest',
    command: invocation.command,
    selections,
    commandFor: selectThenReport(invocation, REPORT, (selection) => selectedWords(selection, invocation, args), reportWords),
    readReport: reportFileReader(REPORT, (text, paths) => readJestJson(text, 'jest', paths)),
  };
}

/** jest's words (its program first) for `selection`; undefined when it selects nothing. */
function selectedWords(selection: TestSelection, invocation: Invocation, args: RunnerArgs): ShellWord[] | undefined {
  const jestWord = invocation.words[0]!;
  if (selection.kind === 'related' && selection.changed.length > 0 && !args.ambiguous) {
    return [jestWord, ...args.options, ownWord('--passWithNoTests'), ownWord('--findRelatedTests'), ...pathWords(invocation, selection.changed)];
  }
  if (selection.kind !== 'tests') return invocation.words;
  if (selection.tests.length === 0) return undefined;
  const pattern = namePattern(selection.tests);
  const files = testFilesOf(selection.tests);
  const options = withoutOptions(args, NAME_PATTERN, GRAMMAR);
  const byName = pattern === undefined ? [] : [ownWord('-t'), ownWord(pattern)];
  // By exact paths when the user's own path patterns are known to be only that; else those patterns, and the names alone select.
  if (files && !args.ambiguous) return [jestWord, ...options, ...byName, ownWord('--runTestsByPath'), ...pathWords(invocation, files)];
  return [jestWord, ...options, ...byName, ...args.positionals];
}
