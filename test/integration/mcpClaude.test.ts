import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { endsWithToolResult, startAnthropicServer, type AnthropicServer } from '../helpers/anthropicServer';
import { claudeTestEnv } from '../helpers/claudeEnv';
import { CLI } from '../helpers/cli';
import { green, runScripted, task, write } from '../helpers/scriptedRun';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';
import { TEST_STATE_DIR } from '../helpers/testStateDir';

// The REAL Claude Code CLI (the dev dependency) against a scripted Messages API on loopback,
// with Taskloom's MCP server as its only MCP server: the model asks for taskloom_runState,
// Claude Code calls the built `taskloom mcp`, and the tool's answer reaches the model.
const CLAUDE = join(__dirname, '..', '..', 'node_modules', '.bin', 'claude');
const MARKER = '[mcp-claude-run-state]';
const TOOL = 'mcp__taskloom__taskloom_runState';

describe('the real claude CLI calling a Taskloom tool over MCP', () => {
  let server: AnthropicServer;
  let home: string;
  let r: TempRepo;
  before(async () => {
    server = await startAnthropicServer();
    home = realpathSync(mkdtempSync(join(tmpdir(), 'taskloom-claude-home-')));
    r = makeTempRepo({ files: { 'README.md': 'hello\n' } });
  });
  after(async () => {
    await server.close();
    rmSync(home, { recursive: true, force: true });
    r.cleanup();
  });

  it('claude -p --mcp-config calls taskloom_runState and the model reads the run it answers with', { timeout: 120_000 }, async () => {
    const finished = runScripted(r.dir, { goal: 'write a greeting', tasks: [task('greet')] }, { tasks: { greet: { actor: [write({ 'hi.txt': 'hi\n' })], critic: [green] } } }, '--gate', 'true');
    assert.equal(finished.code, 0, finished.stdout + finished.stderr);
    const scenario = server.scenario(MARKER, (request) =>
      endsWithToolResult(request) ? { type: 'text', text: 'The run is completed.' } : { type: 'tool_use', name: TOOL, input: {} },
    );
    const config = join(home, 'mcp.json');
    // claudeTestEnv drops TASKLOOM_ variables: the MCP server is handed the test's state folder, where the run above is known.
    writeFileSync(config, JSON.stringify({ mcpServers: { taskloom: { command: process.execPath, args: [CLI, 'mcp', '--cwd', r.dir], env: { TASKLOOM_STATE_DIR: TEST_STATE_DIR, NO_COLOR: '1' } } } }));
    // Claude Code as a user runs it: one prompt, this MCP server only, the tool allowed without asking.
    // Asynchronously: the scripted model answers from this very process.
    const claude = await promisify(execFile)(CLAUDE, ['-p', `${MARKER} How is my Taskloom run doing?`, '--mcp-config', config, '--strict-mcp-config', '--permission-prompts', 'none', '--allowedTools', TOOL, '--output-format', 'json'], {
      cwd: r.dir,
      env: { ...process.env, ...claudeTestEnv({ home, baseUrl: server.url, marker: MARKER }) },
      timeout: 100_000,
    });
    assert.equal(JSON.parse(claude.stdout).result, 'The run is completed.');
    const toolRequest = scenario.requests.find((req) => req.request && endsWithToolResult(req.request));
    assert.ok(toolRequest, `claude never sent the tool's answer back; requests: ${scenario.requests.length}`);
    const answer = JSON.stringify(toolRequest.request!.messages.at(-1)!.content);
    assert.match(answer, /write a greeting/);
    assert.match(answer, /greet\s+merged/);
  });
});
