import { clipEnd } from '../../text/clip';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import * as z from 'zod';
import { ZERO_USAGE, type TokenUsage } from '../../domain/usage';
import type { ProcessResult } from '../../process/processGroup';
import { activityEmitter, callLimitMessage, callLimitMs, runAgentProcess, stuckMessage } from '../agentProcess';
import { failureOf, type AgentRunner, type RunnerActivity, type RunnerInput, type RunnerResult } from '../runner';
import { extractJson } from '../../text/jsonInText';
import { errorPayload } from './errorPayload';
import { newCallMarker } from '../../process/markedProcesses';
import { stripTerminalControls } from '../../text/terminalText';
import { programFolder } from '../programFiles';

export interface CommandRunnerOptions {
  /**
   * The command and its arguments. Placeholders, replaced per call anywhere inside an argument:
   * `{prompt_file}` a temp file holding the prompt (without it, the prompt goes to stdin),
   * `{model}` the model asked for, `{cwd}` the working directory, `{role}` planner / actor /
   * critic, `{access}` read-only / workspace-write.
   */
  argv: string[];
  /** The complete environment of the command (default: this process's). */
  env?: NodeJS.ProcessEnv;
  killGraceMs?: number;
  /** Longest one call may run, output or not (default: callLimitMs of the call's idle timeout). */
  callTimeoutMs?: number;
}

export const COMMAND_PLACEHOLDERS = ['prompt_file', 'model', 'cwd', 'role', 'access'] as const;
type Placeholder = (typeof COMMAND_PLACEHOLDERS)[number];

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const LAST_LINES = 20;
const MAX_ACTIVITY_CHARS = 400;
/** Default when the command reports no model and none was asked for. */
export const COMMAND_DEFAULT_MODEL = 'unknown';

/**
 * Problems of a command template, as sentences (empty when it is fine): an empty argv, an
 * empty command, a `{placeholder}` that is not one of COMMAND_PLACEHOLDERS.
 */
export function validateCommandTemplate(argv: unknown): string[] {
  if (!Array.isArray(argv) || argv.length === 0) {
    return ['the agent command is empty: give the command and its arguments, e.g. ["aider", "--message-file", "{prompt_file}"]'];
  }
  const problems: string[] = [];
  argv.forEach((arg, i) => {
    if (typeof arg !== 'string') {
      problems.push(`argument ${i} of the agent command is not a string: ${JSON.stringify(arg)}`);
      return;
    }
    for (const m of arg.matchAll(PLACEHOLDER)) {
      if (!(COMMAND_PLACEHOLDERS as readonly string[]).includes(m[1]!)) {
        problems.push(
          `unknown placeholder {${m[1]}} in argument ${i} ("${arg}") of the agent command; known: ${COMMAND_PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}`,
        );
      }
    }
  });
  if (typeof argv[0] === 'string' && argv[0].trim() === '') problems.push('the agent command (argument 0) is empty');
  return problems;
}

/**
 * Files the user's own template names by absolute path (`["python3", "/opt/agents/run.py"]`): the
 * program's own, readable in a sandbox. Only the files: a folder beside them may hold anything.
 */
function filesNamedIn(argv: readonly string[]): string[] {
  return argv.slice(1).filter((arg) => isAbsolute(arg) && arg.search(PLACEHOLDER) < 0 && isFile(arg));
}

const isFile = (path: string): boolean => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** Replaces the placeholders of a validated template. */
export function expandCommandTemplate(argv: string[], values: Partial<Record<Placeholder, string>>): string[] {
  return argv.map((arg) =>
    arg.replace(PLACEHOLDER, (whole, name: string) => {
      const value = values[name as Placeholder];
      return value === undefined ? whole : value;
    }),
  );
}

/** What a command may print as its last JSON line to report what it spent. */
const usageLineSchema = z.object({
  taskloom_usage: z.object({
    inputTokens: z.number().nonnegative().optional(),
    outputTokens: z.number().nonnegative().optional(),
    cacheReadTokens: z.number().nonnegative().optional(),
    cacheWriteTokens: z.number().nonnegative().optional(),
    costUsd: z.number().nonnegative().optional(),
    model: z.string().optional(),
    sessionId: z.string().optional(),
  }),
});
type UsageLine = z.infer<typeof usageLineSchema>['taskloom_usage'];

/**
 * Runs any CLI agent by template (aider, gemini, a user's script) as a process group per call.
 * Exit 0 is success, with stdout as the answer; a non-zero exit is an agent error. Usage is
 * unknown (zero) unless the command prints `{"taskloom_usage": {...}}` as a line of stdout.
 */
export class CommandRunner implements AgentRunner {
  readonly name = 'command';
  private readonly argv: string[];
  private readonly usesPromptFile: boolean;

  constructor(private readonly options: CommandRunnerOptions) {
    const problems = validateCommandTemplate(options.argv);
    if (problems.length > 0) throw new Error(`invalid agent command template: ${problems.join('; ')}`);
    this.argv = [...options.argv];
    this.usesPromptFile = this.argv.some((a) => a.includes('{prompt_file}'));
  }

  async run(input: RunnerInput, onActivity?: (activity: RunnerActivity) => void): Promise<RunnerResult> {
    const startedAt = performance.now();
    const elapsed = () => Math.round(performance.now() - startedAt);
    const command = this.argv[0]!;
    const base = (model: string | undefined): Pick<RunnerResult, 'text' | 'usage' | 'model'> => ({
      text: '',
      usage: { ...ZERO_USAGE },
      model: model ?? input.model ?? COMMAND_DEFAULT_MODEL,
    });

    if (this.argv.some((a) => a.includes('{model}')) && !input.model) {
      return {
        ...base(undefined),
        status: 'spawn_failed',
        durationMs: elapsed(),
        error: `the agent command uses {model} but no model was configured for the ${input.role}`,
      };
    }

    let promptDir: string | undefined;
    const values: Partial<Record<Placeholder, string>> = {
      cwd: input.cwd,
      role: input.role,
      access: input.access,
      ...(input.model ? { model: input.model } : {}),
    };
    if (this.usesPromptFile) {
      promptDir = mkdtempSync(join(tmpdir(), 'taskloom-prompt-'));
      values.prompt_file = join(promptDir, 'prompt.md');
      writeFileSync(values.prompt_file, input.prompt, { mode: 0o600 });
    }
    const [resolved, ...args] = expandCommandTemplate(this.argv, values);

    const emit = activityEmitter(onActivity);
    const callTimeoutMs = this.options.callTimeoutMs ?? callLimitMs(input.idleTimeoutMs);
    let usageLine: UsageLine | undefined;
    const onStdoutLine = (line: string) => {
      const reported = parseUsageLine(line);
      if (reported) {
        usageLine = reported;
        return;
      }
      if (line.trim() !== '') emit({ kind: 'text', message: clipEnd(line, MAX_ACTIVITY_CHARS) });
    };
    // Helpers the command moved out of its process group (setsid, nohup …) are stopped after the call too.
    let proc: ProcessResult;
    try {
      proc = await runAgentProcess({
        launch: input.launch,
        // Its model's host is not known: taskloom.sandbox.allowedHosts names it.
        needs: { readable: [...programFolder(resolved ?? command), ...filesNamedIn(this.argv), ...(promptDir ? [promptDir] : [])] },
        command: resolved ?? command,
        args,
        cwd: input.cwd,
        env: { ...(this.options.env ?? process.env), ...input.env },
        marker: newCallMarker(),
        agentName: `\`${command}\``,
        // Without {prompt_file} the prompt is the command's stdin; with it, stdin is /dev/null.
        ...(this.usesPromptFile ? {} : { input: input.prompt }),
        idleTimeoutMs: input.idleTimeoutMs,
        timeoutMs: callTimeoutMs,
        signal: input.signal,
        killGraceMs: this.options.killGraceMs,
        onStdoutLine,
        emit,
      });
    } finally {
      if (promptDir) rmSync(promptDir, { recursive: true, force: true });
    }

    const reported: UsageLine | undefined = usageLine;
    const result: RunnerResult = {
      ...base(reported?.model),
      status: 'ok',
      durationMs: elapsed(),
      usage: toUsage(reported),
      ...(reported?.sessionId ? { sessionId: reported.sessionId } : {}),
    };
    const fail = failureOf(result);

    if (proc.spawnError) return fail('spawn_failed', proc.spawnError, proc.spawnErrorCode === 'ENOENT' ? 'not_installed' : undefined);
    if (proc.sandboxFailure) return fail('spawn_failed', proc.sandboxFailure);
    if (proc.cancelled) return fail('cancelled', 'cancelled');
    if (proc.idleTimedOut) {
      return fail('idle_timeout', stuckMessage(`\`${command}\``, input.idleTimeoutMs), 'stuck', lastOutput(proc));
    }
    if (proc.timedOut) {
      return fail('agent_error', callLimitMessage(`\`${command}\``, callTimeoutMs), 'timed_out', lastOutput(proc));
    }
    // Colours, cursor moves and other controls are not part of the answer, and must not reach a terminal that shows it.
    const text = stripTerminalControls(withoutUsageLines(proc.stdout)).trim();
    if (proc.exitCode !== 0) {
      const how = proc.signal ? `was killed by ${proc.signal}` : `exited with code ${proc.exitCode}`;
      return { ...fail(proc.signal ? 'crashed' : 'agent_error', `\`${command}\` ${how}`, 'exited', lastOutput(proc)), text };
    }
    const reportedError = errorPayload(text);
    if (reportedError !== undefined) {
      return { ...fail('agent_error', `\`${command}\` exited 0 but answered with an error: ${reportedError}`, 'bad_output', lastOutput(proc)), text };
    }
    result.text = text;
    if (input.outputSchema) {
      const structured = extractJson(text);
      if (structured !== undefined) result.structured = structured;
    }
    return result;
  }
}

function parseUsageLine(line: string): UsageLine | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{') || !trimmed.includes('taskloom_usage')) return undefined;
  try {
    const parsed = usageLineSchema.safeParse(JSON.parse(trimmed));
    return parsed.success ? parsed.data.taskloom_usage : undefined;
  } catch {
    return undefined;
  }
}

function withoutUsageLines(stdout: string): string {
  return stdout
    .split('\n')
    .filter((line) => parseUsageLine(line.replace(/\r$/, '')) === undefined)
    .join('\n');
}

function toUsage(reported: UsageLine | undefined): TokenUsage {
  if (!reported) return { ...ZERO_USAGE };
  return {
    inputTokens: reported.inputTokens ?? 0,
    outputTokens: reported.outputTokens ?? 0,
    cacheReadTokens: reported.cacheReadTokens ?? 0,
    cacheWriteTokens: reported.cacheWriteTokens ?? 0,
    costUsd: reported.costUsd ?? 0,
  };
}

function lastOutput(proc: ProcessResult): string {
  return stripTerminalControls(withoutUsageLines(proc.output)).trimEnd().split('\n').slice(-LAST_LINES).join('\n');
}
