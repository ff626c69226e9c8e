import { resolve } from 'node:path';
import { clientConfigText } from '../../mcp/clientConfig';
import { serveMcp } from '../../mcp/mcpServer';
import { EXIT } from '../cliErrors';
import { parseCommandArgs } from '../parseCommandArgs';

/** `taskloom mcp [--cwd DIR] [--print-config]`: Taskloom as an MCP server over stdio (src/mcp), or the snippets that add it to a client. */
export async function mcpCommand(argv: string[]): Promise<number> {
  const { values, cwd } = parseCommandArgs(argv, { 'print-config': { type: 'boolean' } });
  if (values['print-config']) {
    const args = [resolve(process.argv[1]!), 'mcp', ...(values.cwd ? ['--cwd', cwd] : [])];
    process.stdout.write(clientConfigText({ command: process.execPath, args }));
    return EXIT.ok;
  }
  await serveMcp(cwd);
  return EXIT.ok;
}
