// Where the in-VS-Code tests find the VS Code server and the browser, and the one message that
// tells a person how to get them. Both are installed by scripts/vscode/installServer.sh.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const CODE_SERVER_VERSION = '4.100.3';

const cacheRoot = process.env.TASKLOOM_CACHE ?? join(homedir(), '.cache', 'taskloom');

/** The VS Code 1.100 server (lib/vscode of code-server@4.100.3); TASKLOOM_VSCODE_SERVER overrides. */
export const serverDir = process.env.TASKLOOM_VSCODE_SERVER ?? join(cacheRoot, `vscode-server-${CODE_SERVER_VERSION}`);
export const serverMain = join(serverDir, 'out', 'server-main.js');
/** Debian's Chromium; TASKLOOM_CHROMIUM overrides. */
export const chromiumPath = process.env.TASKLOOM_CHROMIUM ?? '/usr/bin/chromium';

/** Throws with what to run when the server or the browser is missing. */
export function assertPrerequisites() {
  const missing = [];
  // installServer.sh writes .installed last, so a half-finished install counts as missing.
  if (!existsSync(serverMain) || (!process.env.TASKLOOM_VSCODE_SERVER && !existsSync(join(serverDir, '.installed')))) {
    missing.push(`the VS Code server (expected at ${serverDir})`);
  }
  if (!existsSync(chromiumPath)) missing.push(`Chromium (expected at ${chromiumPath})`);
  if (missing.length > 0) {
    throw new Error(
      `The VS Code tests need ${missing.join(' and ')}. ` +
        'Run `bash scripts/vscode/installServer.sh` once (it installs Chromium from Debian and the VS Code ' +
        `1.100 server from the code-server@${CODE_SERVER_VERSION} npm package, cached under ~/.cache/taskloom).`,
    );
  }
}
