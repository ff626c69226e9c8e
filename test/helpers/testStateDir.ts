import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/**
 * Tests must never write the real per-user record of created runs (~/.local/state/taskloom):
 * every test process that imports a helper points TASKLOOM_STATE_DIR at a folder under the OS
 * temp dir (unless it is set already), and the CLIs and engine servers it starts inherit it. The
 * engine defaults to the same folder under a test runner (src/engine/run/runProvenance.ts).
 */
export const TEST_STATE_DIR = (process.env.TASKLOOM_STATE_DIR ||= join(tmpdir(), `taskloom-test-state-${userInfo().uid}`));
