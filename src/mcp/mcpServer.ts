import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode, McpError, SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { errorText } from '../engine/domain/taskloomError';
import { McpWorkspace } from './mcpWorkspace';
import { registerReadTools } from './readTools';
import { ResourceUpdates } from './resourceUpdates';
import { registerRunTools } from './runTools';

/**
 * Serves the repository at `cwd` over MCP on stdin/stdout until the client closes them: the tools
 * call the same use cases as the CLI and the editor, and runs started here are driven in this
 * process's background under the same workspace lock. Long work goes on after its call returned:
 * a client hears of it by subscribing to a run's resources (an update at each change) and in log
 * messages at each milestone of a run driven here. Resolves once the client went away and what
 * this process drove was cancelled (resumable as any run).
 */
export async function serveMcp(cwd: string): Promise<void> {
  const { version } = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string };
  const server = new McpServer({ name: 'taskloom', version }, { capabilities: { logging: {} } });
  // A client that went away misses the word; the run goes on.
  const workspace = new McpWorkspace(cwd, ({ level, text }) => void server.server.sendLoggingMessage({ level, logger: 'taskloom', data: text }).catch(() => undefined));
  registerRunTools(server, workspace);
  registerReadTools(server, workspace);
  const updates = new ResourceUpdates(workspace, (uri) => server.server.sendResourceUpdated({ uri }));
  server.server.registerCapabilities({ resources: { subscribe: true } });
  server.server.setRequestHandler(SubscribeRequestSchema, async ({ params }) => {
    await updates.subscribe(params.uri).catch((error: unknown) => {
      throw new McpError(ErrorCode.InvalidParams, errorText(error as Error));
    });
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, ({ params }) => {
    updates.unsubscribe(params.uri);
    return {};
  });
  const closed = new Promise<void>((resolve) => (server.server.onclose = resolve));
  await server.connect(new StdioServerTransport());
  await closed;
  updates.close();
  await workspace.close();
}
