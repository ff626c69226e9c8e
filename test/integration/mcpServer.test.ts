import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CLI, runCli } from '../helpers/cli';
import { call, connect, runIdIn, scenarioInRepo, textOf, waitForState } from '../helpers/mcpClient';
import { green, task, write } from '../helpers/scriptedRun';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

describe('taskloom mcp: Taskloom as an MCP server over stdio', () => {
  let r: TempRepo;
  let client: Client;
  before(async () => {
    r = makeTempRepo({ files: { 'README.md': 'hello\n', '.gitignore': 'plans/\n' } });
    client = await connect(r.dir);
  });
  after(async () => {
    await client.close();
    r.cleanup();
  });

  it('lists every tool with its input schema', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    assert.deepEqual(names, ['taskloom_apply', 'taskloom_approvePlan', 'taskloom_decide', 'taskloom_listRuns', 'taskloom_needsYou', 'taskloom_runState', 'taskloom_startGoal', 'taskloom_trace']);
    const decide = tools.find((t) => t.name === 'taskloom_decide')!;
    assert.deepEqual(decide.inputSchema.required, ['taskId', 'action']);
    assert.deepEqual((decide.inputSchema.properties!.action as { enum: string[] }).enum, ['retry', 'accept', 'skip']);
    const start = tools.find((t) => t.name === 'taskloom_startGoal')!;
    assert.ok(['goal', 'planFile', 'agent', 'model', 'agents', 'gate', 'budget', 'autoApprove'].every((p) => p in start.inputSchema.properties!), JSON.stringify(start.inputSchema));
    assert.equal(start.inputSchema.additionalProperties, false, 'a misspelt option is refused, not dropped');
    assert.ok(tools.every((t) => (t.description ?? '').length > 40), 'every tool says what it does for a model');
  });

  it('starts a plan file, approves it, decides on a task that needs you, and applies the run, all through the tools', async () => {
    const scenario = {
      tasks: {
        a: { actor: [write({ 'a.txt': 'a\n' })], critic: [green] },
        b: { actor: [{ fail: 'cannot do this yet', delayMs: 0 }, write({ 'b.txt': 'b\n' })], critic: [green] },
      },
    };
    const script = scenarioInRepo(r, scenario, 'two-scenario.json');
    mkdirSync(join(r.dir, 'plans'));
    writeFileSync(join(r.dir, 'plans', 'two.json'), JSON.stringify({ goal: 'two files', tasks: [task('a'), task('b')] }));

    const started = await call(client, 'taskloom_startGoal', { planFile: 'plans/two.json', agent: 'scripted', script, gate: ['true'], maxAttempts: 1 });
    assert.equal(started.isError, false, started.text);
    assert.match(started.text, /waits for its plan to be approved/);
    assert.match(started.text, /a: Task a[\s\S]*b: Task b/);
    const runId = runIdIn(started.text);
    assert.match((await call(client, 'taskloom_needsYou', { runId })).text, /the plan waits for approval/);

    const approved = await call(client, 'taskloom_approvePlan', { runId });
    assert.match(approved.text, /under way/, approved.text);
    const waiting = await waitForState(client, runId, (text) => /Waits for you\./.test(text));
    assert.match(waiting, /task b \(NEEDS_HUMAN\)[\s\S]*taskloom_decide/, 'runState names the tool that moves the run on');

    const needsYou = await call(client, 'taskloom_needsYou', { runId });
    assert.match(needsYou.text, /task b \(NEEDS_HUMAN\): [^\n]*cannot do this yet/, needsYou.text);
    assert.match(needsYou.text, /action one of: retry, accept, skip|action one of: retry, skip/);

    const decided = await call(client, 'taskloom_decide', { runId, taskId: 'b', action: 'retry', note: 'try once more' });
    assert.equal(decided.isError, false, decided.text);
    const done = await waitForState(client, runId, (text) => text.startsWith(`Run ${runId}: completed`));
    assert.match(done, /^ {2}b {2}merged/m);
    assert.ok(done.includes(`Next: land it on the user's branch with taskloom_apply { "runId": "${runId}" }`), done);

    const applied = await call(client, 'taskloom_apply', { runId });
    assert.equal(applied.isError, false, applied.text);
    assert.match(applied.text, /Applied run .* to main/);
    assert.equal(r.git(['show', 'HEAD:b.txt']), 'b');
    assert.match((await call(client, 'taskloom_runState', { runId })).text, /Applied to main: nothing is left to do/);
    const mergedTask = await call(client, 'taskloom_decide', { runId, taskId: 'b', action: 'retry', note: 'again' });
    assert.equal(mergedTask.isError, true, 'a decision the task\'s state does not allow');
    assert.match(mergedTask.text, /"b" \(merged\) cannot be retried now/);

    assert.match((await call(client, 'taskloom_listRuns')).text, new RegExp(`${runId}\\s+completed\\s+2/2 merged`));
    assert.match((await call(client, 'taskloom_trace', { runId })).text, /cannot do this yet/);
    const { resources } = await client.listResources();
    assert.ok(resources.some((res) => res.uri === `taskloom://runs/${runId}/decisions`), JSON.stringify(resources));
    const decisions = await client.readResource({ uri: `taskloom://runs/${runId}/decisions` });
    assert.match(String((decisions.contents[0] as { text: string }).text), /try once more|retry/i);
  });

  it('answers bad input with a tool error and keeps serving', async () => {
    const unknownRun = await call(client, 'taskloom_runState', { runId: 'no-such-run' });
    assert.equal(unknownRun.isError, true);
    assert.match(unknownRun.text, /no-such-run/);
    const outside = await call(client, 'taskloom_startGoal', { planFile: '../elsewhere/plan.json', agent: 'scripted' });
    assert.equal(outside.isError, true);
    assert.match(outside.text, /outside the repository/);
    const unknownRunDecided = await call(client, 'taskloom_decide', { runId: 'no-such-run', taskId: 'a', action: 'skip' });
    assert.equal(unknownRunDecided.isError, true);
    assert.match(unknownRunDecided.text, /No run "no-such-run"[\s\S]*taskloom_listRuns/, 'names the tool that lists the runs');
    const absolute = await call(client, 'taskloom_startGoal', { planFile: '/etc/hosts', agent: 'scripted' });
    assert.match(absolute.text, /outside the repository/);
    // A model names no file outside the repository for Taskloom to read, the scripted agent's neither.
    const secretScenario = await call(client, 'taskloom_startGoal', { goal: 'x', agent: 'scripted', script: '/etc/passwd' });
    assert.equal(secretScenario.isError, true);
    assert.match(secretScenario.text, /The scenario file \/etc\/passwd is outside the repository/);
    assert.doesNotMatch(secretScenario.text, /root:/);
    const unknownTask = await call(client, 'taskloom_decide', { taskId: 'zzz', action: 'skip' });
    assert.equal(unknownTask.isError, true);
    assert.match(unknownTask.text, /no task "zzz"\. Its tasks: a, b/);
    const notAllowed = await call(client, 'taskloom_decide', { taskId: 'a', action: 'retry' });
    assert.equal(notAllowed.isError, true, notAllowed.text);
    const badSchema = await call(client, 'taskloom_decide', { taskId: 'a', action: 'explode' });
    assert.equal(badSchema.isError, true);
    // Still serving.
    assert.equal((await call(client, 'taskloom_listRuns')).isError, false);
  });

  it("refuses a taskloom.json that sets what starts programs until it is allowed on this machine, naming the command", async () => {
    const other = makeTempRepo({ files: { 'taskloom.json': JSON.stringify({ 'gate.commands': ['true'] }) } });
    const otherClient = await connect(other.dir);
    try {
      const refused = await call(otherClient, 'taskloom_startGoal', { goal: 'anything', agent: 'scripted' });
      assert.equal(refused.isError, true, refused.text);
      assert.match(refused.text, /"gate\.commands"[\s\S]*not allowed on this machine[\s\S]*taskloom config allow/);
      assert.equal(runCli(['runs', '--json', '--cwd', other.dir]).stdout.trim(), '[]', 'nothing was started');
    } finally {
      await otherClient.close();
      other.cleanup();
    }
  });

  it('reports progress while a goal is planned, when the client asks for it', async () => {
    const scenario = { defaults: { delayMs: 0 }, planner: [{ output: { goal: 'x', tasks: [task('one')] } }], fallback: { actor: [write({ 'f.txt': 'f' })], critic: [green] } };
    const script = scenarioInRepo(r, scenario, 'planning-scenario.json');
    const progress: string[] = [];
    const result = await client.callTool(
      { name: 'taskloom_startGoal', arguments: { goal: 'add a file', agent: 'scripted', script, gate: ['true'] } },
      undefined,
      { onprogress: (p) => progress.push(p.message ?? '') },
    );
    assert.equal((result as { isError?: boolean }).isError, undefined, textOf(result));
    assert.match(textOf(result), /one: Task one/);
    assert.ok(progress.some((m) => /created/.test(m)) && progress.some((m) => /planning: plan proposed/.test(m)), JSON.stringify(progress));
  });
});

describe('taskloom mcp --print-config', () => {
  it('prints the snippets for Claude Code, Codex and VS Code with the absolute path of this CLI', () => {
    const { code, stdout } = runCli(['mcp', '--print-config']);
    assert.equal(code, 0);
    assert.ok(stdout.includes(`claude mcp add taskloom -- ${process.execPath} ${CLI} mcp`), stdout);
    assert.match(stdout, /\[mcp_servers\.taskloom\]\ncommand = ".*node"\nargs = \[".*cli\.js", "mcp"\]/);
    const vscode = JSON.parse(stdout.slice(stdout.indexOf('# VS Code: .vscode/mcp.json') + '# VS Code: .vscode/mcp.json'.length)) as { servers: { taskloom: { type: string; args: string[] } } };
    assert.deepEqual(vscode.servers.taskloom.args, [CLI, 'mcp']);
    assert.equal(vscode.servers.taskloom.type, 'stdio');
  });
});
