import type { Plan } from '../domain/plan';
import type { RunConfig } from '../domain/runConfig';
import type { SettingName } from '../domain/runSettings';
import type { TaskloomEngine } from '../run/engine';
import type { RunSession } from '../session/runSession';

/** What a front door plans or drives in the background for a run. */
export type BackgroundWork = 'planning' | 'driving';

/**
 * What a use case needs of the front door that calls it (the CLI, the engine server, the MCP
 * server): the open engine, and the little that differs in how each door drives. It carries no
 * prompt and no output: a use case answers with a typed result or a typed error, and the door
 * words it. The CLI plans and drives in the foreground (foregroundDoor); the engine server does
 * both in the background, so a change can meet a run it is driving right now.
 */
export interface FrontDoor {
  readonly engine: TaskloomEngine;
  /** How this door names a run setting in its messages: a CLI flag, an editor setting. */
  readonly settingNames: Record<SettingName, string>;
  /** Opens a run's session; a door that streams a run's events hooks them here. */
  session(runId: string): RunSession;
  /** Creates a run (TaskloomEngine.createRun) and opens its session; its first event goes where the session's go. */
  createRun(plan: Plan | undefined, config: RunConfig, goal: string): RunSession;
  /** What this door plans or drives in the background for the run now, if anything. */
  backgroundWork(runId: string): BackgroundWork | undefined;
  /**
   * A change came in while this door drives the run in the background: the drive takes it up
   * (once more when its pass ends). False when the door does not drive the run (any more), so the
   * caller drives it. Synchronous on purpose: the drive cannot end between the look and the promise.
   */
  takeUpInDrive(runId: string): boolean;
  /** Stops the run's background planning or driving and resolves once it stopped (or waiting gave up). */
  stopBackgroundWork(runId: string): Promise<void>;
}

/** The door of a process that plans and drives in the foreground and nothing in the background (the CLI, a test). */
export function foregroundDoor(engine: TaskloomEngine, settingNames: Record<SettingName, string>): FrontDoor {
  return {
    engine,
    settingNames,
    session: (runId) => engine.session(runId),
    createRun: (plan, config, goal) => engine.createRun(plan, config, goal),
    backgroundWork: () => undefined,
    takeUpInDrive: () => false,
    stopBackgroundWork: async () => undefined,
  };
}
