import { appendFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { RunnerStatus } from '../../domain/events';
import { ZERO_USAGE, type TokenUsage } from '../../domain/usage';
import { LineSplitter, type ProcessResult } from '../../process/processGroup';
import { stuckMessage } from '../agentProcess';
import type { AgentRunner, RunnerActivity, RunnerInput, RunnerResult } from '../runner';
import { agentLineSchema, type AgentRequest, type ResultLine } from './agentProtocol';
import { loadScenario, ScenarioError } from './scenario';
import { findPackageRoot } from '../../process/packageRoot';

export interface ScriptedRunnerOptions {
  /** The scenario JSON; a relative path is taken from the current directory. */
  scenarioPath: string;
  /** The bundled agent; default `dist/scripted-agent.js` of the taskloom package. */
  agentEntry?: string;
  killGraceMs?: number;
}

const LAST_LINES = 20;

/** Runs the scripted agent (no model, no network) as a real child process per call. */
export class ScriptedRunner implements AgentRunner {
  readonly name = 'scripted';
  private readonly scenarioPath: string;

  constructor(private readonly options: ScriptedRunnerOptions) {
    // Resolved now: the agent runs in the task's worktree, not in our current directory.
    this.scenarioPath = resolve(options.scenarioPath);
  }

  async run(input: RunnerInput, onActivity?: (activity: RunnerActivity) => void): Promise<RunnerResult> {
    const entry = this.locateAgent();
    if ('error' in entry) return outcome('spawn_failed', { error: entry.error, cause: 'not_installed', durationMs: 0 });

    const request: AgentRequest = {
      role: input.role,
      taskId: input.taskId,
      attempt: input.attempt,
      ...(input.purpose ? { purpose: input.purpose } : {}),
      ...(input.candidate !== undefined ? { candidate: input.candidate } : {}),
      scenarioPath: this.scenarioPath,
      prompt: input.prompt,
    };
    logPrompt(this.scenarioPath, request);
    let result: ResultLine | undefined;
    const onLine = (line: string) => {
      const parsed = parseLine(line);
      if (parsed?.type === 'activity') onActivity?.({ kind: parsed.kind, message: parsed.message });
      if (parsed?.type === 'result') result = parsed;
    };
    const stdoutLines = new LineSplitter();

    const proc = await input.launch({
      needs: { readable: [dirname(entry.path), this.scenarioPath] },
      command: process.execPath,
      args: [entry.path],
      cwd: input.cwd,
      env: { ...childEnv(), ...input.env },
      input: JSON.stringify(request),
      idleTimeoutMs: input.idleTimeoutMs,
      signal: input.signal,
      killGraceMs: this.options.killGraceMs,
      onOutput: (chunk, stream) => {
        if (stream === 'stdout') stdoutLines.push(chunk).forEach(onLine);
      },
    });
    stdoutLines.end().forEach(onLine);

    const durationMs = proc.durationMs;
    if (result) {
      return outcome(result.status, {
        text: result.text,
        ...(result.structured === undefined ? {} : { structured: result.structured }),
        usage: { ...result.usage, costUsd: result.costUsd },
        sessionId: result.sessionId,
        durationMs,
        ...(result.status === 'ok' ? {} : { error: result.text }),
      });
    }
    if (proc.spawnError) return outcome('spawn_failed', { error: proc.spawnError, durationMs });
    if (proc.sandboxFailure) return outcome('spawn_failed', { error: proc.sandboxFailure, durationMs });
    if (proc.cancelled) return outcome('cancelled', { error: 'cancelled', durationMs });
    if (proc.idleTimedOut) {
      return outcome('idle_timeout', { error: stuckMessage('the scripted agent', input.idleTimeoutMs), cause: 'stuck', lastOutput: lastOutput(proc), durationMs });
    }
    const how = proc.signal ? `was killed by ${proc.signal}` : `exited with code ${proc.exitCode}`;
    return outcome('crashed', { error: `the scripted agent ${how} without a result`, cause: 'exited', lastOutput: lastOutput(proc), durationMs });
  }

  private locateAgent(): { path: string } | { error: string } {
    let path: string;
    try {
      path = this.options.agentEntry ?? join(findPackageRoot(), 'dist', 'scripted-agent.js');
    } catch (err) {
      return { error: `cannot locate the scripted agent: ${(err as Error).message}` };
    }
    if (!existsSync(path)) return { error: `the scripted agent is not built: ${path} is missing — run \`node esbuild.mjs\`` };
    return { path };
  }
}

function outcome(
  status: RunnerStatus,
  fields: Partial<Omit<RunnerResult, 'status' | 'model' | 'usage'>> & { durationMs: number; usage?: TokenUsage },
): RunnerResult {
  return { text: '', usage: { ...ZERO_USAGE }, ...fields, status, model: 'scripted' };
}

/**
 * Appends the request to the scenario's `promptLog`, if it names one: written here, outside the
 * agent's sandbox, which lets the agent write nothing but its worktree. A scenario that does not
 * load is left for the agent to report in its result.
 */
function logPrompt(scenarioPath: string, request: AgentRequest): void {
  let log: string | undefined;
  try {
    log = loadScenario(scenarioPath).promptLog;
  } catch (error) {
    if (!(error instanceof ScenarioError)) throw error;
  }
  if (!log) return;
  const { role, taskId, attempt, purpose, candidate, prompt } = request;
  appendFileSync(resolve(dirname(scenarioPath), log), `${JSON.stringify({ role, taskId, attempt, purpose, candidate, prompt })}\n`);
}

/** Lines that are not the agent's JSON (a stack trace, a half-written line) are only kept as output. */
function parseLine(line: string) {
  if (!line.startsWith('{')) return undefined;
  try {
    const parsed = agentLineSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function lastOutput(proc: ProcessResult): string {
  return proc.output.trimEnd().split('\n').slice(-LAST_LINES).join('\n');
}

// Inside VS Code the engine's execPath is Electron's binary, which acts as Node only with this set.
function childEnv(): NodeJS.ProcessEnv {
  return process.versions.electron ? { ...process.env, ELECTRON_RUN_AS_NODE: '1' } : process.env;
}
