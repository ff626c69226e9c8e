import { shellQuote } from '../../text/shellQuote';
import { simpleCommands } from '../gateCommandWords';
import type { WorkspaceLayout, WorkspacePackage } from './affectedSelection';

const NPM_SCRIPT_RUNS = ['test', 't', 'tst', 'run', 'run-script', 'rum', 'urn'];
const PYTEST = [['python3', '-m', 'pytest'], ['python', '-m', 'pytest'], ['pytest'], ['py.test']];

/**
 * The gate command narrowed to `packages`, when it is the workspace tool's run-everywhere form
 * (`npm test --workspaces`, `pnpm -r test`, `yarn workspaces run test`, `yarn workspaces foreach
 * run test`, `python3 -m pytest` at the root, `go test ./...` at a go.work's root); undefined when
 * it is not, or no package is given: then the command runs whole.
 */
export function commandForPackages(layout: WorkspaceLayout, command: string, packages: WorkspacePackage[]): string | undefined {
  const commands = simpleCommands(command);
  if (!commands || commands.length !== 1 || commands[0]!.dir !== '' || packages.length === 0) return undefined;
  const argv = commands[0]!.argv;
  // npm and yarn read the workspaces of package.json; pnpm reads only its own yaml.
  const packageJsonWorkspaces = layout.declaredIn === 'package.json';
  if (argv[0] === 'npm' && packageJsonWorkspaces) return npmCommand(command, argv, packages);
  if (argv[0] === 'yarn' && packageJsonWorkspaces) return yarnCommand(command, argv, packages);
  if (argv[0] === 'pnpm' && layout.tool === 'pnpm') return pnpmCommand(command, argv, packages);
  if (layout.tool === 'python') return pytestCommand(command, argv, packages);
  if (argv[0] === 'go' && layout.declaredIn === 'go.work') return goTestCommand(command, argv, packages);
  return undefined;
}

function npmCommand(command: string, argv: string[], packages: WorkspacePackage[]): string | undefined {
  if (!NPM_SCRIPT_RUNS.includes(argv[1] ?? '') || argv.includes('--include-workspace-root')) return undefined;
  return replaceWord(command, /--workspaces(?:=true)?|-ws/, packages.map((pkg) => `--workspace=${shellQuote(pkg.dir)}`).join(' '));
}

function pnpmCommand(command: string, argv: string[], packages: WorkspacePackage[]): string | undefined {
  if (argv.includes('--include-workspace-root') || argv.some((word) => word.startsWith('--filter') || word === '-F')) return undefined;
  return replaceWord(command, /-r|--recursive/, `--recursive ${packages.map((pkg) => `--filter ${shellQuote(pkg.name)}`).join(' ')}`);
}

/** `python3 -m pytest` (or `pytest`) with options only, so the folders can go last. */
function pytestCommand(command: string, argv: string[], packages: WorkspacePackage[]): string | undefined {
  const runner = PYTEST.find((form) => form.every((word, index) => argv[index] === word));
  // A path or an option's value (`-k expr`) would change what the folders mean; after a comment or a separator they would not reach pytest.
  if (!runner || !argv.slice(runner.length).every((word) => word.startsWith('-')) || /[#;&|\n]/.test(command)) return undefined;
  return `${command.trimEnd()} ${packages.map((pkg) => shellQuote(pkg.dir)).join(' ')}`;
}

/** `go test [flags] ./...` at a go.work's root, where `./...` spans every module of the workspace. */
function goTestCommand(command: string, argv: string[], packages: WorkspacePackage[]): string | undefined {
  if (argv[1] !== 'test' || argv.filter((word) => !word.startsWith('-')).length !== 3) return undefined;
  return replaceWord(command, /\.\/\.\.\./, packages.map((pkg) => shellQuote(pkg.dir ? `./${pkg.dir}/...` : './...')).join(' '));
}

/** yarn 1's `yarn workspaces run <script>` (one run a package), yarn 2+'s `yarn workspaces foreach … run <script>` (with `--include`). */
function yarnCommand(command: string, argv: string[], packages: WorkspacePackage[]): string | undefined {
  if (argv[1] !== 'workspaces') return undefined;
  // Rewritten from its words: only when nothing precedes them (`CI=1 yarn …` would lose its variable).
  if (argv[2] === 'run' && argv.length > 3 && command.trimStart().startsWith('yarn ')) {
    const script = argv.slice(3).map(shellQuote).join(' ');
    return packages.map((pkg) => `yarn workspace ${shellQuote(pkg.name)} run ${script}`).join(' && ');
  }
  if (argv[2] !== 'foreach' || argv.includes('--include') || argv.includes('--since')) return undefined;
  return replaceWord(command, /foreach/, `foreach ${packages.map((pkg) => `--include ${shellQuote(pkg.name)}`).join(' ')}`);
}

/** `command` with the one word that matches `word` (a whole word, as written) replaced; undefined when there is no such word or several. */
function replaceWord(command: string, word: RegExp, replacement: string): string | undefined {
  const pattern = new RegExp(`(^|\\s)(?:${word.source})(?=\\s|$)`, 'g');
  const matches = command.match(pattern);
  if (!matches || matches.length !== 1) return undefined;
  return command.replace(pattern, (_, before: string) => `${before}${replacement}`);
}
