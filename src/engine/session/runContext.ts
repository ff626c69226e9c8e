import type { BaselineView } from '../domain/runState';
import type { SandboxContext } from '../sandbox/taskLauncher';
import type { IntegrationBranch } from '../workspace/integrationBranch';
import type { WorktreeManager } from '../workspace/worktreeManager';
import type { RoleRunners } from './agentFactory';
import type { RunControl } from './runControl';
import type { RunSession } from './runSession';

/** Everything a running task or the merge queue needs, injected so tests use real parts. */
export interface RunContext {
  session: RunSession;
  worktrees: WorktreeManager;
  integration: IntegrationBranch;
  /** The runner of each role's (and task's) agent. */
  agents: RoleRunners;
  /** How this session confines the processes it starts for the run (src/engine/sandbox). */
  sandbox: SandboxContext;
  /** Aborted when the user cancels the run. */
  signal: AbortSignal;
  /** A person's say over one task while the run is driven: stop it (see RunControl). */
  control: RunControl;
  /** The gate on the run's base, running beside the first actors (session/baseline.ts); set once the drive starts. */
  baseline?: Promise<BaselineView | undefined>;
  /** Set when a quota hit pauses the run: no new task starts, running ones finish their step. */
  pause(reason: string): void;
  isPaused(): boolean;
}
