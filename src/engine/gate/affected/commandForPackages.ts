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
  const names = packages.map((pkg) => shellQuote(pkg.name));
  const dirs = packages.map((pkg) => pkg.dir);
  switch (layout.tool) {
    case 'npm':
      if (argv[0] !== 'npm' || !NPM_SCRIPT_RUNS.includes(argv[1] ?? '') || argv.includes('--include-workspace-root')) return undefined;
      return replaceWord(command, /--workspaces(?:=true)?|-ws/, dirs.map((dir) => `--workspace=${shellQuote(dir)}`).join(' '));
    case 'pnpm':
      if (argv[0] !== 'pnpm' || argv.includes('--include-workspace-root') || argv.some((word) => word.startsWith('--filter') || word === '-F')) return undefined;
      return replaceWord(command, /-r|--recursive/, `--recursive ${names.map((name) => `--filter ${name}`).join(' ')}`);
    case 'yarn':
      return yarnCommand(command, argv, packages);
    case 'python': {
      const runner = PYTEST.find((form) => form.every((word, index) => argv[index] === word));
      // Options only, so the folders can go last: a path or an option's value (`-k expr`) would change their meaning,
      // and after a comment or a separator they would not reach pytest.
      if (!runner || !argv.slice(runner.length).every((word) => word.startsWith('-')) || /[#;&|\n]/.test(command)) return undefined;
      return `${command.trimEnd()} ${dirs.map(shellQuote).join(' ')}`;
    }
    case 'go':
      if (layout.declaredIn !== 'go.work' || argv[0] !== 'go' || argv[1] !== 'test' || argv.filter((word) => !word.startsWith('-')).length !== 3) return undefined;
      return replaceWord(command, /\.\/\.\.\./, dirs.map((dir) => shellQuote(dir ? `./${dir}/...` : './...')).join(' '));
  }
}

/** yarn 1's `yarn workspaces run <script>` (one run a package), yarn 2+'s `yarn workspaces foreach … run <script>` (with `--include`). */
function yarnCommand(command: string, argv: string[], packages: WorkspacePackage[]): string | undefined {
  if (argv[0] !== 'yarn' || argv[1] !== 'workspaces') return undefined;
  if (argv[2] === 'run' && argv.length > 3) {
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
