import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkoutPaths } from './checkoutPaths';
import { NOTHING_TO_RUN, pathWords, runnerCommand, type Invocation, type RunnerKind } from './invocation';
import { NODE_TEST_REPORTER_SOURCE, readNodeTestEvents } from './nodeTestReport';
import { clearReport, reportFileReader } from './reportFiles';
import { splitArgs, withoutOptions, type ArgGrammar, type RunnerArgs } from './runnerArgs';
import { ownWord, type ShellWord } from './shellLine';
import { findTestFiles } from './testFiles';
import { namePattern, testFilesOf } from './testSelection';
import type { RecognisedRunner, TestSelection } from './types';

const REPORTER = 'taskloom-node-reporter.mjs';
const REPORT = 'node-test.jsonl';

/** Node's options that take the next word as their value; a word after any other option is a test file. */
const GRAMMAR: ArgGrammar = {
  valued: new Set([
    '-r', '--require', '--import', '--loader', '--experimental-loader', '-C', '--conditions', '--input-type', '--env-file', '--env-file-if-exists',
    '--test-reporter', '--test-reporter-destination', '--test-name-pattern', '--test-skip-pattern', '--test-concurrency', '--test-timeout',
    '--test-shard', '--test-coverage-include', '--test-coverage-exclude', '--test-coverage-branches', '--test-coverage-functions',
    '--test-coverage-lines', '--test-isolation', '--watch-path', '--inspect-port', '--title', '--disable-warning', '--redirect-warnings',
    '--unhandled-rejections', '--dns-result-order', '--diagnostic-dir', '--report-dir', '--report-directory', '--report-filename',
    '--report-signal', '--icu-data-dir', '--openssl-config', '--experimental-config-file', '--localstorage-file', '--stack-trace-limit',
  ]),
  flags: new Set([
    '--test', '--test-only', '--experimental-test-coverage', '--experimental-test-module-mocks', '--experimental-test-snapshots',
    '--test-force-exit', '--test-update-snapshots', '--enable-source-maps', '--no-warnings', '--expose-gc', '--experimental-vm-modules',
    '--experimental-strip-types', '--experimental-transform-types', '--no-experimental-strip-types', '--trace-warnings', '--trace-uncaught',
    '--trace-deprecation', '--throw-deprecation', '--no-deprecation', '--preserve-symlinks', '--experimental-detect-module',
    '--experimental-require-module', '--experimental-json-modules', '--experimental-wasm-modules', '--pending-deprecation',
  ]),
  positionalsLast: true,
};

/** What Node 20 and 22 run when given a folder or nothing: files named as tests, and every file under a `test` folder. */
export const NODE_TEST_FILES = {
  inFolder: ['**/*.test.{cjs,mjs,js}', '**/*-test.{cjs,mjs,js}', '**/*_test.{cjs,mjs,js}', '**/test-*.{cjs,mjs,js}', '**/test.{cjs,mjs,js}', '**/test/**/*.{cjs,mjs,js}'],
  recursive: true,
};
const NOT_TAKEN_OVER = new Set(['--test-reporter-destination', '--watch', '-e', '--eval', '-p', '--print']);

export const nodeTest: RunnerKind = {
  name: 'node:test',
  starts: (words) => words[0]?.text === 'node' && splitArgs(words.slice(1), GRAMMAR).options.some((word) => word.text === '--test'),
  recognise(invocation) {
    const args = splitArgs(invocation.words.slice(1), GRAMMAR);
    if (args.options.some((word) => NOT_TAKEN_OVER.has(word.text.split('=')[0]!))) return undefined;
    return nodeTestRunner(invocation, args);
  },
};

function nodeTestRunner(invocation: Invocation, args: RunnerArgs): RecognisedRunner {
  const userReporters = reporterNames(args);
  const options = withoutOptions(args, new Set(['--test-reporter']), GRAMMAR);
  const specs = args.positionals.length > 0 ? args.positionals : [ownWord('.')];
  return {
    runner: 'node:test',
    command: invocation.command,
    selections: new Set(['all', 'tests', 'files']),
    commandFor(selection, reportDir) {
      writeFileSync(join(reportDir, REPORTER), NODE_TEST_REPORTER_SOURCE);
      clearReport(join(reportDir, REPORT));
      const reporters = [...(userReporters.length > 0 ? userReporters : ['spec']).flatMap((name) => [`--test-reporter=${name}`, '--test-reporter-destination=stdout'])];
      reporters.push(`--test-reporter=${join(reportDir, REPORTER)}`, `--test-reporter-destination=${join(reportDir, REPORT)}`);
      const selected = select(selection, invocation, options, args);
      if (!selected) return NOTHING_TO_RUN;
      return runnerCommand(invocation, [invocation.words[0]!, ...selected.options, ...reporters.map(ownWord), ...selected.positionals]);
    },
    readReport: reportFileReader(REPORT, readNodeTestEvents),
    testFiles: (cwd) => findTestFiles(specs, NODE_TEST_FILES, checkoutPaths(cwd)),
  };
}

/** The options and files running `selection`; undefined when it selects nothing. */
function select(selection: TestSelection, invocation: Invocation, options: ShellWord[], args: RunnerArgs) {
  if (selection.kind === 'all' || selection.kind === 'related') return { options, positionals: args.positionals };
  if (selection.kind === 'files') {
    if (selection.files.length === 0) return undefined;
    return { options, positionals: pathWords(invocation, selection.files) };
  }
  if (selection.tests.length === 0) return undefined;
  const files = testFilesOf(selection.tests);
  const pattern = namePattern(selection.tests, { leafToo: true });
  const withoutPatterns = withoutOptions({ ...args, options }, new Set(['--test-name-pattern']), GRAMMAR);
  return {
    options: pattern === undefined ? withoutPatterns : [...withoutPatterns, ownWord(`--test-name-pattern=${pattern}`)],
    positionals: files ? pathWords(invocation, files) : args.positionals,
  };
}

function reporterNames(args: RunnerArgs): string[] {
  const names: string[] = [];
  args.options.forEach((word, i) => {
    if (word.text.startsWith('--test-reporter=')) names.push(word.text.slice('--test-reporter='.length));
    else if (word.text === '--test-reporter' && args.options[i + 1]) names.push(args.options[i + 1]!.text);
  });
  return names;
}
