// The runner's side of the runner ⇄ suite channel. The suite runs inside the extension host and
// can use only the `vscode` API; a few things need the browser around the workbench instead: a
// screenshot, a window reload it can survive, keys typed into a quick input, a click on a
// notification button or inside a webview. The suite asks for them over HTTP on a Unix socket
// in the session's control folder (TASKLOOM_TEST_CONTROL_DIR/runner.sock): local to the
// machine, no port to pick, and out of reach of any HTTP proxy the extension host would apply.
// Client: test/vscode/suite/runnerControl.ts.
//
//   POST /<action>  body: JSON arguments  →  200 JSON result | 500 {"error": "…"}
import { createServer } from 'node:http';
import { rmSync } from 'node:fs';
import { join } from 'node:path';

export const SOCKET_NAME = 'runner.sock';

/**
 * Serves `actions` (name → async (args) => result) on <controlDir>/runner.sock until `close()`.
 * `onRequest(action, args)` is told about each request first (for the session log).
 */
export async function startControlServer(controlDir, actions, onRequest = () => {}) {
  const socketPath = join(controlDir, SOCKET_NAME);
  rmSync(socketPath, { force: true });
  const server = createServer(async (req, res) => {
    const action = (req.url ?? '/').replace(/^\//, '').split('?')[0];
    let body = '';
    for await (const chunk of req) body += chunk;
    const reply = (status, value) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value ?? {}));
    };
    if (req.method !== 'POST' || !Object.hasOwn(actions, action)) {
      const known = Object.keys(actions).join(', ');
      reply(404, { error: `unknown runner action: ${req.method} /${action} (known: ${known})` });
      return;
    }
    try {
      const args = body ? JSON.parse(body) : {};
      onRequest(action, args);
      reply(200, await actions[action](args));
    } catch (error) {
      // Playwright colours its call logs; the suite prints the message as plain text.
      const message = (error instanceof Error ? error.message : String(error)).replace(/\u001b\[[0-9;]*m/g, '');
      reply(500, { error: message });
    }
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, resolve);
  });
  return {
    socketPath,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
