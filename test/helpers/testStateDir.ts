import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/**
 * Tests must never write the real per-user record of created runs (~/.local/state/taskloom):
 * every test process that imports a helper points TASKLOOM_STATE_DIR at a folder under the OS
 * temp dir (unless it is set already), and the CLIs and engine servers it starts inherit it.
 * scripts/test.mjs sets it for every test file, and the VS Code sessions get the same folder
 * (scripts/vscode/sessionSetup.mjs).
 */
export const TEST_STATE_DIR = (process.env.TASKLOOM_STATE_DIR ||= join(tmpdir(), `taskloom-test-state-${userInfo().uid}`));
