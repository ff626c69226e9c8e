import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findPackageRoot } from '../../src/engine/process/packageRoot';
import type { RunEvent } from '../../src/engine/domain/events';
import { runCli, startCli, writeInputs, type CliResult } from '../helpers/cli';
import { endsWithToolResult, startAnthropicServer, type AnthropicServer, type MessagesRequest, type ScriptedReply } from '../helpers/anthropicServer';
import { claudeTestEnv, leftovers } from '../helpers/claudeEnv';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

/**
 * Steering a running task through the REAL claude binary (confined as any run's actor is) against
 * the scripted Messages API: `taskloom run` drives in one process, `taskloom send` speaks from
 * another, and the message joins the actor's running turn, in the same session.
 */
const CLAUDE = join(findPackageRoot(__dirname), 'node_modules', '.bin', 'claude');
const MARKER = '[case-steer-live]';
const MESSAGE = 'Use TABS in out.txt, not spaces.';
/** The actor's first command waits for this file in its worktree: the test makes it once the message is on its way. */
const GO_FILE = '.go';

let server: AnthropicServer;
let home: string;
let repo: TempRepo;

before(async () => {
  server = await startAnthropicServer();
  home = realpathSync(mkdtempSync(join(tmpdir(), 'taskloom-steer-home-')));
  repo = makeTempRepo({ files: { 'README.md': '# sample\n', '.gitignore': `${GO_FILE}\n` } });
});
after(async () => {
  const strays = leftovers(MARKER);
  await server?.close();
  repo?.cleanup();
  if (home) rmSync(home, { recursive: true, force: true });
  assert.deepEqual(strays, [], 'no process of the case is left running');
});

const conversation = (r: MessagesRequest) => JSON.stringify(r.messages);
const cwdOf = (r: MessagesRequest): string => /Primary working directory: ([^\\"]+)/.exec(JSON.stringify(r.raw))![1]!;

/** The actor waits for the go file, then writes out.txt as the conversation asks; the critic approves. */
function model(request: MessagesRequest): ScriptedReply {
  if (request.system.includes('critic of a Taskloom task')) {
    if (endsWithToolResult(request)) return { type: 'text', text: 'Done.' };
    return { type: 'tool_use', name: 'StructuredOutput', input: { decision: 'green', summary: 'fine', findings: [] } };
  }
  const toolResults = (conversation(request).match(/"tool_result"/g) ?? []).length;
  if (toolResults === 0) {
    const wait = `node -e "const fs=require('fs');const t=setInterval(()=>{if(fs.existsSync('${GO_FILE}'))clearInterval(t)},100)"`;
    return { type: 'tool_use', name: 'Bash', text: 'Looking around first.', input: { command: wait, description: 'wait' } };
  }
  if (toolResults === 1) {
    const content = conversation(request).includes(MESSAGE) ? '\ttabs\n' : '    spaces\n';
    return { type: 'tool_use', name: 'Write', input: { file_path: join(cwdOf(request), 'out.txt'), content } };
  }
  return { type: 'text', text: 'Wrote out.txt.' };
}

function events(runId: string): RunEvent[] {
  return readFileSync(join(repo.dir, '.taskloom', 'runs', runId, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RunEvent);
}

async function until<T>(what: string, look: () => T | undefined, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = look();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const runIdOf = (): string | undefined => {
  const dir = join(repo.dir, '.taskloom', 'runs');
  return existsSync(dir) ? readdirSync(dir)[0] : undefined;
};

describe('taskloom send to a running Claude Code actor', () => {
  it('joins the running turn: the model sees the message in the same session, and the file the actor writes follows it', { timeout: 300_000 }, async () => {
    const scenario = server.scenario(MARKER, model);
    const plan = { goal: `steer ${MARKER}`, tasks: [{ id: 't1', title: 'Write out.txt', description: `Write out.txt ${MARKER}`, acceptance: [], dependsOn: [] }] };
    const env = claudeTestEnv({ home, baseUrl: server.url, marker: MARKER });
    const args = ['run', '--cwd', repo.dir, '--plan', writeInputs({ 'plan.json': plan })['plan.json']!, '--yes', '--agent', 'claude', '--claude-path', CLAUDE];
    const { done } = startCli([...args, '--gate', 'test -f out.txt', '--on-base-failure', 'required'], env);

    const worktree = await until('the actor at work', () => scenario.requests[0]?.request && cwdOf(scenario.requests[0].request));
    const sent = await new Promise<CliResult>((resolve) => {
      const { done: sending } = startCli(['send', 't1', MESSAGE, '--cwd', repo.dir]);
      void sending.then(resolve);
    });
    const runId = (await until('the run', runIdOf))!;
    await until('the message recorded', () => events(runId).find((e) => e.type === 'task_message'));
    // Claude holds the message until its command ends: only then can it join the turn.
    writeFileSync(join(worktree, GO_FILE), '');
    const result = await done;

    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    assert.equal(sent.code, 0, sent.stderr);
    assert.match(sent.stdout, /Delivered: it joined the running turn of "t1"'s actor|Taken: "t1"'s actor \(Claude Code\) hears it at its next step/);
    const log = events(runId);
    assert.equal(log.filter((e) => e.type === 'task_message').length, 1);
    const delivered = log.filter((e) => e.type === 'task_message_delivered');
    assert.deepEqual(delivered.map((e) => e.type === 'task_message_delivered' && [e.how, e.attempt]), [['live', 1]]);
    // One actor call, one session: the model saw the message right after the command's result.
    const actorCalls = log.filter((e) => e.type === 'runner_call' && e.role === 'actor');
    assert.equal(actorCalls.length, 1);
    const actorRequests = scenario.requests.filter((r) => r.request!.system.includes('actor of a Taskloom task'));
    assert.equal(new Set(actorRequests.map((r) => r.headers['x-claude-code-session-id'])).size, 1);
    assert.ok(conversation(actorRequests[1]!.request!).includes(MESSAGE), 'the request after the command carries the message');
    const integration = runCli(['trace', '--json', '--cwd', repo.dir]);
    const branch = (JSON.parse(integration.stdout) as { integration: { branch: string } }).integration.branch;
    assert.match(repo.git(['show', `${branch}:out.txt`]), /^\ttabs/);
    const transcript = log.flatMap((e) => (e.type === 'agent_transcript' ? e.lines.map((l) => l.text) : []));
    assert.ok(transcript.some((t) => /message from .+ joined the running turn \(attempt 1\)/.test(t)), transcript.join('\n'));
  });
});
