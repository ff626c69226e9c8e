import { runGate, type GateResult } from '../gate/runGate';
import { runJudgedGate, type GateJudging } from '../gate/judgedGate';
import { leavingNoTrace } from '../workspace/leavingNoTrace';
import { copyIncludedFiles } from '../workspace/worktreeInclude';
import type { RunContext } from './runContext';
import { spareRunPort, taskEnv } from './taskEnv';
import { commandLauncher } from './taskProcesses';

export interface ProjectGateOptions {
  /** The task whose worktree it is: its TASKLOOM_TASK_ID and TASKLOOM_PORT go in the environment. */
  taskId?: string;
  /**
   * For a worktree that has no setup of its own (the integration's, a pull request's): the
   * untracked files are copied in and the setup commands run first, on every commit gated there,
   * as part of the gate.
   */
  setUp?: boolean;
  /** Judge the gate's commands against a baseline, test by test where a runner is recognised (gate/judgedGate.ts); absent: by exit codes alone. */
  judging?: GateJudging;
}

/** Runs the run's configured gate commands in `cwd`, with its timeout, watchdog and cancellation. */
export async function runProjectGate(ctx: Pick<RunContext, 'session' | 'signal' | 'sandbox'>, cwd: string, options: ProjectGateOptions = {}): Promise<GateResult> {
  const { state } = ctx.session;
  const { config } = state;
  const setup = options.setUp ? (config.worktree?.setup ?? []) : [];
  if (options.setUp) await copyIncludedFiles(state.repoRoot, cwd, config.worktree?.copy ?? []);
  const env = taskEnv(state, options.taskId ?? null);
  if (options.taskId === undefined) env.TASKLOOM_PORT = String(await spareRunPort(state));
  const deadline = Date.now() + config.gateTimeoutSeconds * 1000;
  // The setup commands keep their own reach (the package registries) though they run as part of this gate.
  const part = (role: 'setup' | 'gate', commands: string[]) => {
    const gate = {
      commands,
      launch: commandLauncher(ctx, role, cwd),
      cwd,
      timeoutMs: Math.max(0, deadline - Date.now()),
      idleTimeoutMs: config.stuckThresholdSeconds * 1000,
      signal: ctx.signal,
      env: { ...process.env, ...env },
    };
    return role === 'gate' && options.judging ? runJudgedGate({ ...gate, judging: options.judging }) : runGate(gate);
  };
  // What setup made stays; what the gate writes never reaches a commit (leavingNoTrace).
  const gated = () => leavingNoTrace(cwd, config.gate?.keepOutputs ?? [], () => part('gate', config.gateCommands));
  if (setup.length === 0) return gated();
  const prepared = await part('setup', setup);
  if (!prepared.passed) return prepared;
  const gate = await gated();
  return { ...gate, commands: [...prepared.commands, ...gate.commands] };
}
