import type { EventOf } from '../../engine/domain/events';
import { formatClock } from '../../engine/text/clock';

/**
 * The full output of a gate run as the read-only document shows it: what ran where, when (local
 * time, as the ledger entry it is opened from says it), and each command with its output.
 */
export function gateOutputText(event: EventOf<'gate_result'>, today = new Date()): string {
  const where = event.taskId ? `task ${event.taskId}, attempt ${event.attempt}` : 'integration';
  return [
    `Gate ${event.passed ? 'passed' : 'failed'} (${where}) at ${formatClock(event.at, today)}`,
    ...event.commands.flatMap((c) => ['', `$ ${c.command}  → ${c.timedOut ? 'timed out' : `exit ${c.exitCode}`} in ${c.durationMs} ms`, c.output]),
  ].join('\n');
}
