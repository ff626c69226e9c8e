import { runGate, type GateResult } from '../gate/runGate';
import type { RunContext } from './runContext';

/** Runs the run's configured gate commands in `cwd`, with its timeout, watchdog and cancellation. */
export function runProjectGate(ctx: Pick<RunContext, 'session' | 'signal'>, cwd: string): Promise<GateResult> {
  const { config } = ctx.session.state;
  return runGate({
    commands: config.gateCommands,
    cwd,
    timeoutMs: config.gateTimeoutSeconds * 1000,
    idleTimeoutMs: config.stuckThresholdSeconds * 1000,
    signal: ctx.signal,
  });
}
