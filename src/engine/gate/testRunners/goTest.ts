import { writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { shellQuote } from '../../text/shellQuote';
import { NOTHING_TO_RUN, type Invocation, type RunnerKind } from './invocation';
import { GO_OUTPUT_PRINTER_SOURCE, goModule, readGoTestEvents } from './goTestReport';
import { clearReport, reportFileReader } from './reportFiles';
import { hasOption, splitArgs, withoutOptions, type ArgGrammar, type RunnerArgs } from './runnerArgs';
import { joinWords, ownWord } from './shellLine';
import { escapeRegExp, isWholeFile, testFilesOf } from './testSelection';
import type { RecognisedRunner, RunnerCommand, TestRef, TestSelection } from './types';

const REPORT = 'go-test.jsonl';
const PRINTER = 'taskloom-go-output.cjs';

/** `go test`'s build and test flags that take a value; go's flags are single-dash words. */
const GRAMMAR: ArgGrammar = {
  valued: new Set([
    '-run', '-skip', '-bench', '-benchtime', '-count', '-cpu', '-parallel', '-timeout', '-tags', '-p', '-covermode', '-coverpkg',
    '-coverprofile', '-cpuprofile', '-memprofile', '-memprofilerate', '-blockprofile', '-blockprofilerate', '-mutexprofile',
    '-mutexprofilefraction', '-trace', '-o', '-exec', '-shuffle', '-outputdir', '-ldflags', '-gcflags', '-asmflags', '-mod', '-modfile',
    '-pkgdir', '-toolexec', '-buildvcs', '-overlay', '-pgo', '-vet', '-fullpath',
  ]),
  flags: new Set(['-v', '-race', '-cover', '-short', '-failfast', '-a', '-x', '-work', '-trimpath', '-benchmem', '-msan', '-asan', '-linkshared', '-modcacherw']),
  singleDashLong: true,
};
/** Flags that write JSON already, run elsewhere, run no tests, or pass the rest to the test binary. */
const NOT_TAKEN_OVER = new Set(['-json', '-C', '-args', '-c', '-n', '-list', '-fuzz', '-i']);
const NAME_FILTERS = new Set(['-run', '-skip']);

export const goTest: RunnerKind = {
  name: 'go test',
  starts: (words) => words[0]?.text === 'go' && words[1]?.text === 'test',
  recognise(invocation) {
    const args = splitArgs(invocation.words.slice(2), GRAMMAR);
    const flagNames = new Set([...NOT_TAKEN_OVER].flatMap((flag) => [flag, `-${flag}`]));
    return hasOption(args, flagNames, GRAMMAR) ? undefined : goRunner(invocation, args);
  },
};

function goRunner(invocation: Invocation, args: RunnerArgs): RecognisedRunner {
  return {
    runner: 'go test',
    command: invocation.command,
    selections: new Set(args.ambiguous ? ['all', 'tests'] : ['all', 'tests', 'related']),
    commandFor(selection, reportDir) {
      writeFileSync(join(reportDir, PRINTER), GO_OUTPUT_PRINTER_SOURCE);
      clearReport(join(reportDir, REPORT));
      if (selection.kind === 'tests' && selection.tests.length === 0) return NOTHING_TO_RUN;
      if (selection.kind === 'related' && selection.changed.length > 0 && !args.ambiguous) {
        const related = relatedPackages(selection.changed, invocation, args);
        if (related) return related(reportDir);
      }
      return goCommand(invocation, reportDir, selectedArgs(selection, invocation, args));
    },
    readReport: reportFileReader(REPORT, readGoTestEvents),
  };
}

/**
 * `go test -json` into the report file, then its Output printed as go would have printed it, and
 * go's exit status kept: the report comes whole from the file, not from output the gate caps.
 */
function goCommand(invocation: Invocation, reportDir: string, args: readonly string[], packages = ''): RunnerCommand {
  const go = joinWords([...invocation.assignments, ...invocation.words.slice(0, 2), ownWord('-json')]);
  const report = shellQuote(join(reportDir, REPORT));
  const print = `${shellQuote(process.execPath)} ${shellQuote(join(reportDir, PRINTER))} ${report}`;
  return { command: `${invocation.before}{ ${go} ${args.join(' ')}${packages} > ${report}; status=$?; ${print}; exit $status; }`, env: invocation.env };
}

function selectedArgs(selection: TestSelection, invocation: Invocation, args: RunnerArgs): string[] {
  if (selection.kind !== 'tests') return invocation.words.slice(2).map((word) => word.raw);
  const options = withoutOptions(args, NAME_FILTERS, GRAMMAR).map((word) => word.raw);
  const names = runPattern(selection.tests);
  const folders = testFilesOf(selection.tests);
  const packages = folders && !args.ambiguous ? folders.map((folder) => packageArg(invocation.paths.forRunner(folder))) : args.positionals.map((word) => word.raw);
  return [...options, ...(names ? ['-run', shellQuote(names)] : []), ...packages];
}

/** `-run` of the tests' top-level names (a subtest reruns with its parent); undefined when every one is a whole package. */
function runPattern(tests: readonly TestRef[]): string | undefined {
  const names = new Set(tests.filter((test) => !isWholeFile(test)).map((test) => test.name.split('/')[0]!));
  return names.size === 0 ? undefined : `^(?:${[...names].map(escapeRegExp).join('|')})$`;
}

const packageArg = (folder: string): string => shellQuote(folder === '.' ? '.' : `./${folder}`);

/**
 * The packages of the changed files and those that import them, tests' imports included, asked
 * of `go list` when the command runs (`-deps` of every test variant, matched by awk). Undefined
 * (run all) when a change is not inside a package of the module, or is the module's own files.
 */
function relatedPackages(changed: readonly string[], invocation: Invocation, args: RunnerArgs): ((reportDir: string) => RunnerCommand) | undefined {
  const module = goModule(invocation.paths.cwd, invocation.paths.top);
  if (!module) return undefined;
  const moduleFolder = invocation.paths.fromRunner(module.dir) ?? '.';
  const importPaths = new Set<string>();
  for (const file of changed) {
    if (/(^|\/)go\.(mod|sum|work)$/.test(file)) return undefined;
    const folder = posix.dirname(file);
    const inside = moduleFolder === '.' ? folder : posix.relative(moduleFolder, folder);
    if (inside.startsWith('..')) return undefined;
    importPaths.add(inside === '.' ? module.path : `${module.path}/${inside}`);
  }
  const patterns = args.positionals.length > 0 ? args.positionals.map((word) => word.raw).join(' ') : '.';
  const template = shellQuote('{{if .ForTest}}{{.ForTest}}{{else}}{{.ImportPath}}{{end}} {{join .Deps " "}}');
  const affected = shellQuote(`BEGIN { n = split(changed, c, " "); for (i = 1; i <= n; i++) want[c[i]] = 1 } $1 !~ /\\.test$/ { if (want[$1]) { print $1; next } for (i = 2; i <= NF; i++) if (want[$i]) { print $1; next } }`);
  const list = `pkgs=$(go list -e -test -f ${template} ${patterns} | awk -v changed=${shellQuote([...importPaths].join(' '))} ${affected} | sort -u)`;
  const options = args.options.map((word) => word.raw);
  return (reportDir) => {
    const run = goCommand({ ...invocation, before: '' }, reportDir, options, ' $pkgs');
    return { command: `${invocation.before}${list} && if [ -n "$pkgs" ]; then ${run.command}; else echo '[taskloom] no package imports the changed ones'; fi`, env: invocation.env };
  };
}
