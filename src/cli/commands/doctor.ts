import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { gitVersion, inspectRepo } from '../../engine/workspace/repoInspector';
import { EXIT } from '../cliErrors';
import { green, red, yellow } from '../format';
import { parseCommandArgs } from '../parseCommandArgs';

const AGENT_CLIS = [
  { name: 'claude', what: 'Claude Code' },
  { name: 'codex', what: 'OpenAI Codex CLI' },
  { name: 'aider', what: 'aider' },
  { name: 'gemini', what: 'Gemini CLI' },
];

export function findOnPath(name: string, path = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
}

/** Checks what a run needs and says what to fix; exit 1 when something blocks a run. */
export async function doctorCommand(argv: string[]): Promise<number> {
  const { cwd } = parseCommandArgs(argv, {});
  let blocking = 0;
  const ok = (label: string, text: string) => process.stdout.write(`${green('✓')} ${label.padEnd(12)} ${text}\n`);
  const warn = (label: string, text: string) => process.stdout.write(`${yellow('!')} ${label.padEnd(12)} ${text}\n`);
  const fail = (label: string, text: string) => {
    blocking += 1;
    process.stdout.write(`${red('✗')} ${label.padEnd(12)} ${text}\n`);
  };

  try {
    const git = await gitVersion();
    if (git.supportsWorktrees) ok('git', `${git.version} (worktrees supported)`);
    else fail('git', `${git.version} is too old for worktrees; install git 2.17 or newer`);
  } catch (error) {
    fail('git', (error as Error).message);
  }

  try {
    const repo = await inspectRepo(cwd);
    ok('repository', `${repo.root} on ${repo.headRef} @ ${repo.headCommit.slice(0, 10)}`);
    if (repo.dirtyPaths.length) {
      warn('working tree', `${repo.dirtyPaths.length} uncommitted path(s); runs start from the last commit and ignore them`);
    } else ok('working tree', 'clean');
    const lockFile = join(repo.root, '.taskloom', 'lock');
    if (existsSync(lockFile)) warn('lock', `held: ${readFileSync(lockFile, 'utf8').trim()}`);
  } catch (error) {
    const hint = (error as { hint?: string }).hint;
    fail('repository', `${(error as Error).message}${hint ? ` — ${hint}` : ''}`);
  }

  for (const agent of AGENT_CLIS) {
    const found = findOnPath(agent.name);
    if (found) ok(agent.name, `${agent.what} found at ${found}`);
    else warn(agent.name, `${agent.what} not found on PATH`);
  }
  ok('scripted', 'built-in scripted agent (no network) is always available');
  return blocking ? EXIT.needsHuman : EXIT.ok;
}
