import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import type { RunConfig } from '../domain/runConfig';
import { isNpmInitPlaceholder } from '../gate/detectGateCommands';
import { isLiteralWord, simpleCommands, type SimpleCommand } from '../gate/gateCommandWords';
import { launchUnconfined, type ProcessLauncher } from '../process/launcher';
import { taskLauncher, type SandboxContext } from '../sandbox/taskLauncher';
import { Git } from '../workspace/git';

/** One line of the gate's dry run: a gate command, and whether it can start. */
export interface GateStartCheck {
  status: 'ok' | 'warn' | 'fail';
  text: string;
}

const LOOKUP_TIMEOUT_MS = 30_000;
/** Prints each argument the shell cannot find: a builtin, a program on PATH, or an executable path. */
const LOOKUP_SCRIPT = 'for p do command -v "$p" >/dev/null 2>&1 || printf "%s\\n" "$p"; done';

/**
 * The gate's dry run: whether each gate command could start, without running it (running the
 * project's tests here would take as long as a task's gate). Each simple command's program is looked
 * up by the shell the gate runs in, started as the gate's own is (confined, with its environment);
 * a path inside the repository must be in the base commit, executable; `npm test` and `npm run X`
 * need that script in the base commit's package.json (not npm init's placeholder). What the
 * commands then do is not checked: the first task's gate is their first run.
 */
export async function dryRunGate(config: RunConfig, repoRoot: string | undefined, sandbox: SandboxContext | undefined): Promise<GateStartCheck[]> {
  const parsed = config.gateCommands.map((command) => ({ command, simple: simpleCommands(command) }));
  const programs = [...new Set(parsed.flatMap((p) => (p.simple ?? []).map((c) => c.argv[0]!).filter((p) => isLiteralWord(p) && !isRelativePath(p))))];
  const lookup = await lookUpPrograms(programs, sandbox);
  const missing = 'missing' in lookup ? lookup.missing : undefined;
  const checks: GateStartCheck[] = 'error' in lookup ? [{ status: 'warn', text: `could not look for the gate's programs: ${lookup.error}` }] : [];
  const confined = sandbox?.confinement.confined ? ' (confined)' : '';
  const setupMakesFiles = (config.worktree?.setup.length ?? 0) + (config.worktree?.copy.length ?? 0) > 0;
  for (const { command, simple } of parsed) {
    if (!simple) {
      checks.push({ status: 'warn', text: `\`${command}\`: not dry-run (more than simple commands); its first run is the first task's gate` });
      continue;
    }
    const problems: Array<{ blocks: boolean; text: string }> = [];
    const onPath = new Set<string>();
    const inRepository = new Set<string>();
    const scripts = new Map<string, Set<string>>();
    const unchecked = new Set<string>();
    for (const cmd of simple) {
      const program = cmd.argv[0]!;
      if (!isLiteralWord(program)) unchecked.add(`\`${program}\``);
      else if (isRelativePath(program)) {
        const problem = await repositoryProgramProblem(repoRoot, cmd, setupMakesFiles);
        if (problem) problems.push(problem);
        else if (problem === null) inRepository.add(`\`${program}\``);
        else unchecked.add(`\`${program}\``);
      } else if (!missing) unchecked.add(`\`${program}\``);
      else if (missing.has(program)) problems.push({ blocks: true, text: `\`${program}\` is not on the PATH the gate sees${confined}` });
      else onPath.add(`\`${program}\``);
      const script = npmScript(cmd);
      if (!script) continue;
      const problem = await npmScriptProblem(repoRoot, cmd.dir, script);
      if (problem) problems.push({ blocks: true, text: problem });
      else if (problem === null) {
        const path = posix.join(cmd.dir!, 'package.json');
        scripts.set(path, (scripts.get(path) ?? new Set()).add(`"${script}"`));
      } else unchecked.add(`the "${script}" script`);
    }
    if (problems.length) {
      checks.push({ status: problems.some((p) => p.blocks) ? 'fail' : 'warn', text: `\`${command}\` cannot start: ${problems.map((p) => p.text).join('; ')}` });
      continue;
    }
    const facts = [
      ...(onPath.size ? [`${[...onPath].join(', ')} found by the gate's shell${confined}`] : []),
      ...(inRepository.size ? [`${[...inRepository].join(', ')} in the base commit`] : []),
      ...[...scripts].map(([path, names]) => `${path} has ${names.size === 1 ? 'a script' : 'the scripts'} ${[...names].join(', ')}`),
    ];
    if (unchecked.size) {
      checks.push({ status: 'warn', text: `\`${command}\`: ${[...facts, `not checked: ${[...unchecked].join(', ')} (known only when it runs)`].join('; ')}` });
    } else {
      checks.push({ status: 'ok', text: `\`${command}\` can start: ${facts.join('; ')} (dry run: nothing was run)` });
    }
  }
  return checks;
}

const isRelativePath = (program: string): boolean => program.includes('/') && !program.startsWith('/');

/** Asks the shell the gate runs in, started as the gate is, which programs it cannot find. */
async function lookUpPrograms(programs: string[], sandbox: SandboxContext | undefined): Promise<{ missing: Set<string> } | { error: string }> {
  if (programs.length === 0) return { missing: new Set() };
  const dir = mkdtempSync(join(tmpdir(), 'taskloom-gate-lookup-'));
  try {
    const launch: ProcessLauncher = sandbox ? taskLauncher(sandbox, { role: 'gate', checkout: dir, writes: true }) : launchUnconfined;
    const result = await launch({ command: 'sh', args: ['-c', LOOKUP_SCRIPT, 'sh', ...programs], cwd: dir, timeoutMs: LOOKUP_TIMEOUT_MS });
    if (result.sandboxFailure) return { error: `the sandbox did not start: ${result.sandboxFailure}` };
    if (result.exitCode !== 0) return { error: `the lookup failed: ${result.spawnError ?? (result.stderr.trim() || `exit ${result.exitCode}`)}` };
    return { missing: new Set(result.stdout.split('\n').filter(Boolean)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A program inside the repository (`./gradlew`): the base commit must hold it, executable, unless the worktree setup may make it. */
/** Null when it can start, undefined when it could not be checked (no repository, a folder only the shell knows). */
async function repositoryProgramProblem(repoRoot: string | undefined, cmd: SimpleCommand, setupMakesFiles: boolean): Promise<{ blocks: boolean; text: string } | null | undefined> {
  const program = cmd.argv[0]!;
  if (!repoRoot || cmd.dir === null) return undefined;
  const path = posix.normalize(posix.join(cmd.dir, program));
  const entry = (await new Git(repoRoot).run(['ls-tree', '--full-tree', 'HEAD', '--', path])).stdout;
  const mode = entry.split(' ')[0];
  if (mode === '100755' || mode === '120000') return null;
  if (mode === '100644') return { blocks: true, text: `\`${program}\` is not executable in the base commit` };
  return setupMakesFiles
    ? { blocks: false, text: `\`${program}\` is not in the base commit (the worktree setup must make it)` }
    : { blocks: true, text: `\`${program}\` is not in the base commit` };
}

/** The package.json script an npm command runs (`npm test`, `npm run lint`), if it is one. */
function npmScript({ argv }: SimpleCommand): string | null {
  if (posix.basename(argv[0]!) !== 'npm') return null;
  const [sub, name] = argv.slice(1);
  if (sub === 'test' || sub === 't' || sub === 'tst') return 'test';
  if ((sub === 'run' || sub === 'run-script') && name && !name.startsWith('-')) return name;
  return null;
}

/** Why the base commit's package.json cannot run `script`; null when it can, undefined when it could not be read (no repository, an unknown folder). */
async function npmScriptProblem(repoRoot: string | undefined, dir: string | null, script: string): Promise<string | null | undefined> {
  if (!repoRoot || dir === null) return undefined;
  const path = posix.join(dir, 'package.json');
  const { exitCode, stdout } = await new Git(repoRoot).run(['cat-file', '-p', `HEAD:${path}`], { accept: [0, 128] });
  if (exitCode !== 0) return `the base commit has no ${path}`;
  let scripts: unknown;
  try {
    scripts = (JSON.parse(stdout) as { scripts?: unknown }).scripts;
  } catch (error) {
    return `${path} is not valid JSON: ${(error as Error).message}`;
  }
  const body = typeof scripts === 'object' && scripts !== null ? (scripts as Record<string, unknown>)[script] : undefined;
  if (typeof body !== 'string') return `${path} has no "${script}" script`;
  if (script === 'test' && isNpmInitPlaceholder(body)) return `${path}'s "test" script is npm init's placeholder, which always fails`;
  return null;
}
