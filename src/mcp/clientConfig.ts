/** How a client starts this server: this very Node and CLI, by absolute path (a client's PATH may hold neither). */
export interface ServerLaunch {
  command: string;
  args: string[];
}

/** The snippets that add Taskloom to Claude Code, Codex and VS Code, for `taskloom mcp --print-config`. */
export function clientConfigText(launch: ServerLaunch): string {
  const json = (value: unknown) => JSON.stringify(value, null, 2);
  const server = { command: launch.command, args: launch.args };
  const shellWords = [launch.command, ...launch.args].map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`));
  const tomlList = `[${launch.args.map((a) => JSON.stringify(a)).join(', ')}]`;
  return [
    '# Claude Code: run once in your project',
    `claude mcp add taskloom -- ${shellWords.join(' ')}`,
    '',
    '# Claude Code, shared with your team: .mcp.json at the project root',
    json({ mcpServers: { taskloom: server } }),
    '',
    '# Codex: ~/.codex/config.toml',
    '[mcp_servers.taskloom]',
    `command = ${JSON.stringify(launch.command)}`,
    `args = ${tomlList}`,
    '',
    '# VS Code: .vscode/mcp.json',
    json({ servers: { taskloom: { type: 'stdio', ...server } } }),
    '',
  ].join('\n');
}
