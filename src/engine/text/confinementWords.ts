import type { SandboxMode } from '../domain/sandboxSettings';

/** The facts of a confinement, as recorded (the `confinement` event) or resolved. */
export interface ConfinementFacts {
  mode: SandboxMode;
  confined: boolean;
  mechanism?: string;
  reason?: string;
}

/** One line for the CLI's run header, the ledger and the run view: what the run's processes could reach. */
export function confinementWords(c: ConfinementFacts): string {
  if (c.confined) return `Confined (${c.mechanism ?? 'sandbox'}): agents, setup and gates see only their worktree, get no secrets and reach only the hosts allowed`;
  return `UNCONFINED: agents, setup and gates run with your files, environment and network — ${c.reason ?? 'no sandbox'}`;
}

/** A word for the status of a run's confinement, for tight places (a tree item, a header cell). */
export const confinementLabel = (c: ConfinementFacts): string => (c.confined ? 'confined' : 'UNCONFINED');
