import { mkdirSync, mkdtempSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * A fresh, empty CODEX_HOME for a test, outside the temporary folder as a real one (~/.codex) is:
 * codex 0.171 refuses to make its helper links (`codex-linux-sandbox`, `apply_patch`) under a
 * CODEX_HOME in $TMPDIR or /tmp, and where the system bwrap predates `--argv0` (Debian's 0.8) its
 * sandbox cannot start without them (src/engine/agents/codex/codexSandbox.ts). Under the user's
 * cache folder, not the checkout, which may itself be in /tmp (a CI clone); the test removes it.
 */
export function makeCodexHome(): string {
  const homes = join(homedir(), '.cache', 'taskloom', 'test-codex-homes');
  mkdirSync(homes, { recursive: true });
  return mkdtempSync(join(homes, 'home-'));
}
