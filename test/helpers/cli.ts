import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import './testStateDir';

export const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cliEnv(): NodeJS.ProcessEnv {
  return { ...process.env, NO_COLOR: '1' };
}

/** Runs the built CLI to the end as a real child process. */
export function runCli(args: string[], options: { input?: string; env?: NodeJS.ProcessEnv } = {}): CliResult {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { ...cliEnv(), ...options.env },
    input: options.input ?? '',
    timeout: 120_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Starts the CLI in its own process group, so a test can SIGKILL it like a crash would. */
export function startCli(args: string[], env: NodeJS.ProcessEnv = {}): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...cliEnv(), ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c) => (stdout += c));
  child.stderr!.on('data', (c) => (stderr += c));
  const done = new Promise<CliResult>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { child, done };
}

const inputDirs: string[] = [];
process.on('exit', () => inputDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Writes JSON files (plan, scenario) to a fresh temp folder outside any repository, removed when the process exits. */
export function writeInputs(files: Record<string, unknown>): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'taskloom-inputs-'));
  inputDirs.push(dir);
  const paths: Record<string, string> = {};
  for (const [name, content] of Object.entries(files)) {
    paths[name] = join(dir, name);
    writeFileSync(paths[name]!, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  }
  return paths;
}
