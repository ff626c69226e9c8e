import type { Confirm } from '../confirm';
import { confirmUnknownRun } from './userErrors';

/** What a request that drives a run carries once the user agreed to drive a run not started on this machine. */
export type RunTrust = { trustRun?: true };

/**
 * Sends a request that drives a run. When the engine refuses because the run's `.taskloom/` came
 * with the repository, asks the user (showing what would run) and, with their say-so, sends it
 * again trusted. Undefined when the user declined; any other failure is thrown.
 */
export async function requestTrustingRun<R>(confirm: Confirm, send: (trust: RunTrust) => Promise<R>): Promise<{ answer: R } | undefined> {
  try {
    return { answer: await send({}) };
  } catch (error) {
    const confirmed = await confirmUnknownRun(confirm, error);
    if (confirmed === undefined) throw error;
    return confirmed ? { answer: await send({ trustRun: true }) } : undefined;
  }
}
