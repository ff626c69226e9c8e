import { EngineShutdown, type DriveOutcome } from '../engine/run/engineShutdown';
import type { TaskloomEngine } from '../engine/run/engine';
import type { RunSession } from '../engine/session/runSession';
import { EXIT } from './cliErrors';
import { bold, red, yellow } from './format';
import type { Confinement } from '../engine/domain/sandboxSettings';
import { confinementFacts } from '../engine/domain/sandboxSettings';
import { confinementWords } from '../engine/text/confinementWords';
import { createProgressPrinter } from './progressPrinter';
import { formatRunSummary } from './summary';

/**
 * Drives a run to its end with progress on stdout. The first Ctrl-C cancels the run cleanly
 * (agents and gates are stopped, the log says so); a second one exits at once.
 */
export async function driveWithProgress(engine: TaskloomEngine, session: RunSession): Promise<number> {
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    process.stderr.write(yellow('\nCancelling the run (Ctrl-C again to quit at once)…\n'));
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  const stop = session.onEvent(createProgressPrinter());
  let status: DriveOutcome;
  try {
    // After the handlers: finding out how to confine starts a process, and a Ctrl-C meanwhile is a cancel too.
    printConfinement(await engine.confine(session));
    status = await engine.drive(session, controller.signal);
  } catch (error) {
    // The drive failed (e.g. the log could not be written): the other tasks' agents and gates
    // are stopped now rather than left running until their step ends. The run stays resumable.
    controller.abort(new EngineShutdown(`the run stopped: ${(error as Error).message}`));
    throw error;
  } finally {
    stop();
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
  }
  process.stdout.write(`${formatRunSummary(session.state)}\n`);
  return status === 'completed' ? EXIT.ok : EXIT.needsHuman;
}

/** Every session says whether its agents, setup and gates were confined: unconfined in red. */
export function printConfinement(confinement: Confinement): void {
  const words = confinementWords(confinementFacts(confinement));
  process.stdout.write(`${bold('Sandbox')} ${confinement.confined ? words : red(words)}\n`);
}
