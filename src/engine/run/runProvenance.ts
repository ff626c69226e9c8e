import { createHash } from 'node:crypto';
import { DEFAULT_SANDBOX_SETTINGS, type SandboxSettings } from '../domain/sandboxSettings';
import { appendFileSync, existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { RunConfig } from '../domain/runConfig';
import type { RunState } from '../domain/runState';
import { isSatisfied } from '../domain/taskStates';
import { TaskloomError } from '../domain/taskloomError';

/**
 * Which runs this user created with Taskloom on this machine. A repository can ship its own
 * `.taskloom/` (a crafted run whose gate or agent commands are malicious), and everything in it,
 * `createdBy.host` included, can lie; so "created here" is decided by a record outside the
 * repository: one line per run in `<state dir>/created-runs.jsonl`, with the repository's real
 * path, the run id and a fingerprint of the run's config. Lines are only appended (one small
 * write each), so concurrent Taskloom processes never lose each other's entries.
 */
export interface CreatedRunEntry {
  repoRoot: string;
  runId: string;
  fingerprint: string;
}

const FILE_NAME = 'created-runs.jsonl';

/**
 * TASKLOOM_STATE_DIR, else `$XDG_STATE_HOME/taskloom`, else `~/.local/state/taskloom`. (The test
 * harnesses set TASKLOOM_STATE_DIR, so test runs never write to the real home.)
 */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TASKLOOM_STATE_DIR) return env.TASKLOOM_STATE_DIR;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'taskloom');
  return join(homedir(), '.local', 'state', 'taskloom');
}

/** JSON with object keys sorted, so the fingerprint does not depend on key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function configFingerprint(config: RunConfig): string {
  return createHash('sha256').update(canonicalJson(config)).digest('hex');
}

function realRoot(repoRoot: string): string {
  try {
    return realpathSync(repoRoot);
  } catch {
    return repoRoot;
  }
}

function readEntries(env: NodeJS.ProcessEnv): CreatedRunEntry[] {
  const file = join(stateDir(env), FILE_NAME);
  if (!existsSync(file)) return [];
  const entries: CreatedRunEntry[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const e = JSON.parse(line) as Partial<CreatedRunEntry>;
      if (typeof e.repoRoot === 'string' && typeof e.runId === 'string' && typeof e.fingerprint === 'string') {
        entries.push({ repoRoot: e.repoRoot, runId: e.runId, fingerprint: e.fingerprint });
      }
    } catch {
      // A torn or foreign line: ignored.
    }
  }
  return entries;
}

/**
 * Records that this user created (or chose to trust) the run. Returns a warning instead of
 * throwing: failing to write the record must not fail the run (it will be asked about on resume).
 */
export function recordKnownRun(repoRoot: string, runId: string, config: RunConfig, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dir = stateDir(env);
  const entry: CreatedRunEntry = { repoRoot: realRoot(repoRoot), runId, fingerprint: configFingerprint(config) };
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // One line, one append (O_APPEND): atomic for a write this small on a local file system.
    appendFileSync(join(dir, FILE_NAME), `${JSON.stringify(entry)}\n`, { mode: 0o600 });
    return undefined;
  } catch (error) {
    return `could not record run ${runId} as created here in ${join(dir, FILE_NAME)} (${(error as Error).message}); resuming it will ask first`;
  }
}

/** Created (or trusted) by this user on this machine, in this repository, with this very config. */
export function isKnownRun(repoRoot: string, state: Pick<RunState, 'runId' | 'config'>, env: NodeJS.ProcessEnv = process.env): boolean {
  const root = realRoot(repoRoot);
  let fingerprint: string;
  try {
    fingerprint = configFingerprint(state.config);
  } catch {
    return false;
  }
  return readEntries(env).some((e) => e.repoRoot === root && e.runId === state.runId && e.fingerprint === fingerprint);
}

/** What resuming the run would execute: its gate commands, its agent, how many tasks are left. */
export function describeWhatWouldRun(state: Pick<RunState, 'config' | 'tasks'>): string[] {
  const lines: string[] = [];
  const gates = Array.isArray(state.config?.gateCommands) ? state.config.gateCommands : [];
  if (gates.length === 0) lines.push('gate: none');
  for (const command of gates) lines.push(`gate command: ${String(command)}`);
  const setup = Array.isArray(state.config?.worktree?.setup) ? state.config.worktree.setup : [];
  for (const command of setup) lines.push(`setup command: ${String(command)}`);
  lines.push(...sandboxLines(state.config?.sandbox));
  const agent = state.config?.agent as RunConfig['agent'] | undefined;
  switch (agent?.kind) {
    case 'scripted':
      lines.push(`agent: scripted, scenario ${agent.scriptPath}`);
      break;
    case 'claude':
      lines.push(`agent: claude, binary ${agent.binaryPath}`);
      break;
    case 'codex':
      lines.push(`agent: codex, binary ${agent.binaryPath}${agent.configOverrides?.length ? ` (-c ${agent.configOverrides.join(' -c ')})` : ''}`);
      break;
    case 'command':
      lines.push(`agent: command, argv ${JSON.stringify(agent.argv)}`);
      break;
    default:
      lines.push(`agent: ${JSON.stringify(agent ?? null)}`);
  }
  const unfinished = Object.values(state.tasks ?? {}).filter((t) => !isSatisfied(t.state) && t.state !== 'SKIPPED').length;
  lines.push(`unfinished tasks: ${unfinished}`);
  return lines;
}

/** How the run's own settings would confine it, where they differ from the defaults: a crafted run may ask for less confinement. */
function sandboxLines(sandbox: SandboxSettings | undefined): string[] {
  const settings = sandbox ?? DEFAULT_SANDBOX_SETTINGS;
  const lines = [`sandbox: ${settings.mode}${settings.mode === 'off' ? ' (unconfined)' : ''}`];
  const widened = (name: string, list: readonly string[] | undefined, defaults: readonly string[]) => {
    const extra = (Array.isArray(list) ? list : []).filter((entry) => !defaults.includes(entry));
    if (extra.length) lines.push(`sandbox ${name}: ${extra.map(String).join(', ')}`);
  };
  widened('allows hosts', settings.allowedHosts, DEFAULT_SANDBOX_SETTINGS.allowedHosts);
  widened('setup hosts', settings.setupHosts, DEFAULT_SANDBOX_SETTINGS.setupHosts);
  widened('gate hosts', settings.gateHosts, DEFAULT_SANDBOX_SETTINGS.gateHosts);
  widened('passes variables', settings.env, DEFAULT_SANDBOX_SETTINGS.env);
  widened('reads', settings.readPaths, DEFAULT_SANDBOX_SETTINGS.readPaths);
  const unhidden = DEFAULT_SANDBOX_SETTINGS.hiddenPaths.filter((p) => Array.isArray(settings.hiddenPaths) && !settings.hiddenPaths.includes(p));
  if (unhidden.length) lines.push(`sandbox no longer hides: ${unhidden.join(', ')}`);
  if (settings.agentsSeeIncludedFiles === true) lines.push('sandbox: agents see the files .worktreeinclude copies');
  return lines;
}

/** Thrown when a run this user did not create here would be driven without their say-so. */
export class UnknownRunError extends TaskloomError {
  constructor(
    readonly runId: string,
    readonly whatWouldRun: string[],
    hint: string,
    /** The host the run says it was created on: its own record, which can lie. */
    readonly claimedHost: string,
  ) {
    super('bad_input', `Run ${runId} was not started by Taskloom on this machine (its .taskloom/ folder came with the repository or from elsewhere)`, hint, { code: 'unknown_run' });
    this.name = 'UnknownRunError';
  }
}
