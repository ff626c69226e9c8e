import { mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { findPackageRoot } from '../../src/engine/process/packageRoot';

/**
 * A fresh, empty CODEX_HOME for a test, outside the temporary folder as a real one (~/.codex) is:
 * codex 0.171 refuses to make its helper links (`codex-linux-sandbox`, `apply_patch`) under a
 * CODEX_HOME in $TMPDIR or /tmp, and where the system bwrap predates `--argv0` (Debian's 0.8) its
 * sandbox cannot start without them (src/engine/agents/codex/codexSandboxCheck.ts). Under the
 * ignored test-artifacts/ folder; the test removes it.
 */
export function makeCodexHome(): string {
  const homes = join(findPackageRoot(__dirname), 'test-artifacts', 'codex-homes');
  mkdirSync(homes, { recursive: true });
  return mkdtempSync(join(homes, 'home-'));
}
