import { join } from 'node:path';
import { checkoutPaths } from './checkoutPaths';
import { runnerCommand, NOTHING_TO_RUN, type Invocation, type RunnerKind } from './invocation';
import { readJestJson } from './jestJsonReport';
import { clearReport, readReportFile } from './reportFiles';
import { hasOption, splitArgs, withoutOptions, type ArgGrammar, type RunnerArgs } from './runnerArgs';
import { ownWord } from './shellLine';
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
    commandFor(selection, reportDir) {
      clearReport(join(reportDir, REPORT));
      const words = selectedWords(selection, invocation, args);
      if (!words) return NOTHING_TO_RUN;
      return runnerCommand(invocation, [invocation.words[0]!, ...words, ownWord('--json'), ownWord(`--outputFile=${join(reportDir, REPORT)}`)]);
    },
    readReport(reportDir, _output, cwd) {
      const text = readReportFile(join(reportDir, REPORT));
      return text === undefined ? undefined : readJestJson(text, 'jest', checkoutPaths(cwd));
    },
  };
}

/** jest's arguments for `selection`, its program left out; undefined when it selects nothing. */
function selectedWords(selection: TestSelection, invocation: Invocation, args: RunnerArgs) {
  const userWords = invocation.words.slice(1);
  const forRunner = (files: string[]) => files.map((file) => ownWord(invocation.paths.forRunner(file)));
  if (selection.kind === 'related' && selection.changed.length > 0 && !args.ambiguous) {
    return [...args.options, ownWord('--passWithNoTests'), ownWord('--findRelatedTests'), ...forRunner(selection.changed)];
  }
  if (selection.kind !== 'tests') return userWords;
  if (selection.tests.length === 0) return undefined;
  const pattern = namePattern(selection.tests);
  const files = testFilesOf(selection.tests);
  const options = withoutOptions(args, NAME_PATTERN, GRAMMAR);
  const byName = pattern === undefined ? [] : [ownWord('-t'), ownWord(pattern)];
  // By exact paths when the user's own path patterns are known to be only that; else those patterns, and the names alone select.
  if (files && !args.ambiguous) return [...options, ...byName, ownWord('--runTestsByPath'), ...forRunner(files)];
  return [...options, ...byName, ...args.positionals];
}
