import type { Plan } from '../../src/engine/domain/plan';
import type { RunSettings } from '../../src/engine/domain/runSettings';
import { TaskloomEngine } from '../../src/engine/run/engine';
import { runConfigFromSettings } from '../../src/engine/run/runConfigFromSettings';
import type { RunSession } from '../../src/engine/session/runSession';
import { foregroundDoor, type FrontDoor } from '../../src/engine/usecases/frontDoor';
import { EDITOR_SETTING_KEYS } from '../../src/protocol/runSettings';
import { scriptedSettings } from './scriptedSettings';
import { after } from 'node:test';
import { makeTempRepo, type TempRepo } from './tempRepo';
import './testStateDir';

/**
 * The use cases (src/engine/usecases) called in-process, as a front door calls them: an engine
 * open on a real repository, the foreground door over it (`over` changes what the door says of its
 * background work, as the engine server's would), closed with `close` (once; later calls do nothing).
 */
export async function openDoor(dir: string, over: Partial<Pick<FrontDoor, 'backgroundWork' | 'takeUpInDrive' | 'stopBackgroundWork'>> = {}): Promise<FrontDoor & { close(): void }> {
  const engine = await TaskloomEngine.open(dir, { command: 'use case test' });
  let open = true;
  const close = () => {
    if (open) engine.close();
    open = false;
  };
  return { ...foregroundDoor(engine, EDITOR_SETTING_KEYS), ...over, close };
}

/** A run of `plan` with the scripted agent playing `scenario`; approved unless `approve` is false (its plan then waits). */
export function scriptedRun(door: FrontDoor, plan: Plan, scenario: object, options: { approve?: boolean; settings?: Partial<RunSettings> } = {}): RunSession {
  const { engine } = door;
  const config = runConfigFromSettings(scriptedSettings(scenario, options.settings), { baseDir: engine.repo.root, repoRoot: engine.repo.root, labels: EDITOR_SETTING_KEYS });
  const session = engine.createRun(plan, config);
  if (options.approve !== false) engine.approvePlan(session, 'autopilot');
  return session;
}

/** Drives the run to its end in this process. */
export const driveToEnd = (door: FrontDoor, session: RunSession) => door.engine.drive(session, new AbortController().signal);

/**
 * Doors for one test file: `door` opens one on a fresh temporary repository (or on `dir`), and
 * every door is closed and every repository removed when the file's tests end.
 */
export function doorsOfThisFile() {
  const repos: TempRepo[] = [];
  const doors: Array<{ close(): void }> = [];
  after(() => {
    doors.forEach((d) => d.close());
    repos.forEach((r) => r.cleanup());
  });
  const repo = (): TempRepo => {
    const r = makeTempRepo();
    repos.push(r);
    return r;
  };
  const door = async (over: Parameters<typeof openDoor>[1] = {}, dir = repo().dir): Promise<FrontDoor & { close(): void }> => {
    const opened = await openDoor(dir, over);
    doors.push(opened);
    return opened;
  };
  return { repo, door };
}
