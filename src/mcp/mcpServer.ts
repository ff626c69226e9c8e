import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { McpWorkspace } from './mcpWorkspace';
import { registerReadTools } from './readTools';
import { registerRunTools } from './runTools';

/**
 * Serves the repository at `cwd` over MCP on stdin/stdout until the client closes them: the tools
 * call the same use cases as the CLI and the editor, and runs started here are driven in this
 * process's background under the same workspace lock. Resolves once the client went away and
 * what this process drove was cancelled (resumable as any run).
 */
export async function serveMcp(cwd: string): Promise<void> {
  const { version } = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string };
  const server = new McpServer({ name: 'taskloom', version }, { capabilities: { logging: {} } });
  const workspace = new McpWorkspace(cwd);
  registerRunTools(server, workspace);
  registerReadTools(server, workspace);
  const closed = new Promise<void>((resolve) => (server.server.onclose = resolve));
  await server.connect(new StdioServerTransport());
  await closed;
  await workspace.close();
}
