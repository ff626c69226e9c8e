import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI } from './cli';
import type { TempRepo } from './tempRepo';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
export const textOf = (result: unknown): string => (result as ToolResult).content.map((c) => c.text ?? '').join('\n');

/** The SDK's own client, talking to the built `taskloom mcp` over stdio as Claude Code or VS Code would. */
export async function connect(dir: string, client = new Client({ name: 'taskloom-test', version: '1.0.0' })): Promise<Client> {
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--cwd', dir], env: { ...env, NO_COLOR: '1' }, stderr: 'inherit' }));
  return client;
}

export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ text: string; isError: boolean }> {
  const result = await client.callTool({ name, arguments: args });
  return { text: textOf(result), isError: (result as ToolResult).isError === true };
}

/** Asks taskloom_runState until `done` holds of its answer (the run is driven in the server's background). */
export async function waitForState(client: Client, runId: string, done: (text: string) => boolean): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const { text } = await call(client, 'taskloom_runState', { runId });
    if (done(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`run ${runId} never got there`);
}

export const runIdIn = (text: string): string => /Run (\S+?):? /.exec(text)![1]!;

/**
 * Commits a scripted agent's scenario into the repository and answers its path as
 * taskloom_startGoal takes it: relative to the root, since the server takes no file from outside;
 * committed, since the planner's sandbox hides the checkout's untracked files.
 */
export function scenarioInRepo(r: TempRepo, scenario: object, name = 'scenario.json'): string {
  mkdirSync(join(r.dir, 'scenarios'), { recursive: true });
  writeFileSync(join(r.dir, 'scenarios', name), JSON.stringify(scenario));
  r.git(['add', `scenarios/${name}`]);
  r.git(['commit', '-qm', `scenario ${name}`]);
  return `scenarios/${name}`;
}
