import { join } from 'node:path';
import { runnerCommand, NOTHING_TO_RUN, type Invocation, type RunnerKind } from './invocation';
import { readPytestJunit } from './pytestReport';
import { clearReport, reportFileReader } from './reportFiles';
import { hasOption, splitArgs, type ArgGrammar, type RunnerArgs } from './runnerArgs';
import { ownWord, type ShellWord } from './shellLine';
import { isWholeFile, testFilesOf } from './testSelection';
import type { RecognisedRunner, TestRef, TestSelectionKind } from './types';

const REPORT = 'junit.xml';

/**
 * pytest's options (and its common plugins': cov, xdist, timeout, rerunfailures) that take the
 * next word, optional values included (argparse gives `--cov src` the word). An unknown option
 * followed by a word leaves the test paths unknown, and a rerun by node id needs them: then the
 * command is not taken over.
 */
const GRAMMAR: ArgGrammar = {
  valued: new Set([
    '-k', '-m', '-p', '-c', '-o', '-W', '-r', '--rootdir', '--maxfail', '--tb', '--ignore', '--ignore-glob', '--deselect', '--confcutdir',
    '--basetemp', '--durations', '--durations-min', '--junitxml', '--junit-xml', '--junit-prefix', '--log-level', '--log-format',
    '--log-date-format', '--log-cli-level', '--log-cli-format', '--log-file', '--log-file-level', '--import-mode', '--capture',
    '--override-ini', '--config-file', '--color', '--code-highlight', '--doctest-glob', '--doctest-report', '--assert', '--debug',
    '--last-failed-no-failures', '--lfnf', '--verbosity', '--pythonwarnings', '--cov', '--cov-report', '--cov-config', '--cov-fail-under',
    '--cov-context', '-n', '--numprocesses', '--dist', '--maxprocesses', '--timeout', '--timeout-method', '--reruns', '--reruns-delay',
    '--only-rerun', '--hypothesis-seed', '--hypothesis-profile', '--hypothesis-verbosity', '--benchmark-sort', '--benchmark-columns',
  ]),
  flags: new Set([
    '-q', '-v', '-x', '-s', '-l', '--quiet', '--verbose', '--exitfirst', '--strict-markers', '--strict-config', '--strict', '--lf',
    '--last-failed', '--ff', '--failed-first', '--nf', '--new-first', '--sw', '--stepwise', '--stepwise-skip', '--cache-clear', '--showlocals',
    '--no-header', '--no-summary', '--disable-warnings', '--disable-pytest-warnings', '--runxfail', '--doctest-modules',
    '--continue-on-collection-errors', '--setup-show', '--fulltrace', '--full-trace', '--cov-append', '--cov-branch', '--no-cov',
    '--benchmark-disable', '--benchmark-skip', '--testmon',
  ]),
};
/** Options that run no tests, stop for a person, or never end. */
const NOT_TAKEN_OVER = new Set(['--collect-only', '--co', '--fixtures', '--fixtures-per-test', '--markers', '-h', '--help', '--version', '-V', '--pdb', '--trace', '--setup-only', '--setup-plan', '-f', '--looponfail']);

/** `pytest …`, `py.test …`, `python3 -m pytest …`: how many words name the program. */
function programLength(words: readonly ShellWord[]): number {
  if (words[0]?.text === 'pytest' || words[0]?.text === 'py.test') return 1;
  return /^python(3(\.\d+)?)?$/.test(words[0]?.text ?? '') && words[1]?.text === '-m' && words[2]?.text === 'pytest' ? 3 : 0;
}

export const pytest: RunnerKind = {
  name: 'pytest',
  starts: (words) => programLength(words) > 0,
  recognise(invocation) {
    const args = splitArgs(invocation.words.slice(programLength(invocation.words)), GRAMMAR);
    if (args.ambiguous || hasOption(args, NOT_TAKEN_OVER, GRAMMAR) || hasOption(args, new Set(['--testmon']), GRAMMAR)) return undefined;
    return pytestRunner(invocation, args);
  },
};

function pytestRunner(invocation: Invocation, args: RunnerArgs): RecognisedRunner {
  const program = invocation.words.slice(0, programLength(invocation.words));
  // No 'related': pytest narrows by change only through pytest-testmon, and asking whether it is
  // installed means running the checkout's interpreter (a venv an agent can write) outside the
  // sandbox; its record (.testmondata) would be removed after every gate anyway. Workspace packages narrow pytest instead.
  const selections = new Set<TestSelectionKind>(['all', 'tests']);
  return {
    runner: 'pytest',
    command: invocation.command,
    selections,
    commandFor(selection, reportDir) {
      clearReport(join(reportDir, REPORT));
      // `xunit1` test cases carry their file, which a node id starts with; the user's own junit_family is for their own report.
      const report = [`--junitxml=${join(reportDir, REPORT)}`, '-o', 'junit_family=xunit1'].map(ownWord);
      if (selection.kind === 'tests') {
        if (selection.tests.length === 0) return NOTHING_TO_RUN;
        const ids = testFilesOf(selection.tests) ? nodeIds(selection.tests, invocation) : args.positionals;
        return runnerCommand(invocation, [...program, ...args.options, ...report, ...ids]);
      }
      return runnerCommand(invocation, [...invocation.words, ...report]);
    },
    readReport: reportFileReader(REPORT, readPytestJunit),
  };
}

/** Node ids as pytest takes them from cwd (a test outside the checkout has no file to name it by: then the user's own paths are run). */
function nodeIds(tests: readonly TestRef[], invocation: Invocation): ShellWord[] {
  return tests.map((test) => {
    const file = invocation.paths.forRunner(test.file!);
    return ownWord(isWholeFile(test) ? file : `${file}::${test.name}`);
  });
}
