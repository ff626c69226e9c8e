import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findPackageRoot } from '../../src/engine/process/packageRoot';
import type { RunEvent } from '../../src/engine/domain/events';
import type { TraceReport } from '../../src/engine/report/traceReport';
import { endsWithToolResult, startAnthropicServer, type AnthropicServer, type MessagesRequest, type ScriptedReply } from '../helpers/anthropicServer';
import { claudeTestEnv } from '../helpers/claudeEnv';
import { runCli, startCli, writeInputs } from '../helpers/cli';
import { makeCodexHome } from '../helpers/codexHome';
import {
  addFileCommand,
  codexConfigFlags,
  codexTestEnv,
  execCommand,
  message,
  startOpenAIServer,
  type OpenAIServer,
  type RecordedRequest,
} from '../helpers/openaiServer';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

/**
 * A run whose roles are played by different vendors, through both REAL CLIs: Claude Code (the
 * scripted Messages API plays its model) is the actor, Codex (the scripted Responses API) is
 * the critic and, for the one task whose plan entry names it, the actor too.
 */
const BIN = join(findPackageRoot(__dirname), 'node_modules', '.bin');
const TIMEOUT = { timeout: 240_000 };
const MARKER = 'roles-case';

let anthropic: AnthropicServer;
let openai: OpenAIServer;
let home: string;
let codexHome: string;
const repos: TempRepo[] = [];
before(async () => {
  anthropic = await startAnthropicServer();
  openai = await startOpenAIServer();
  home = realpathSync(mkdtempSync(join(tmpdir(), 'taskloom-roles-home-')));
  codexHome = makeCodexHome();
});
after(async () => {
  await anthropic?.close();
  await openai?.close();
  repos.forEach((r) => r.cleanup());
  for (const dir of [home, codexHome]) if (dir) rmSync(dir, { recursive: true, force: true });
});

const conversation = (r: MessagesRequest) => JSON.stringify(r.messages);
const taskIn = (text: string) => /Task ([a-z0-9-]+): /.exec(text)?.[1] ?? 'unknown';

/** Claude's model: the actor writes `<task>.txt` through the Write tool, then wraps up. Claude is never asked to review. */
function claudeModel(request: MessagesRequest): ScriptedReply {
  if (!request.system.includes('actor of a Taskloom task')) throw new Error('Claude Code was asked for something other than acting');
  const task = taskIn(conversation(request));
  if (endsWithToolResult(request)) return { type: 'text', text: `Wrote ${task}.txt.` };
  const cwd = /Primary working directory: ([^\\"]+)/.exec(JSON.stringify(request.raw))?.[1];
  return { type: 'tool_use', name: 'Write', text: 'Writing.', input: { file_path: join(cwd!, `${task}.txt`), content: `${task} by claude\n` } };
}

/** Codex's model: it reviews every change, and acts for the task that names it. */
function codexModel(r: RecordedRequest) {
  const prompt = JSON.stringify(r.body?.input ?? '');
  if (prompt.includes('Review the change made for task')) {
    return message(JSON.stringify({ decision: 'green', summary: 'a second opinion: fine', findings: [] }), { input: 700, cached: 0, output: 30 });
  }
  if (r.body?.input?.at(-1)?.type === 'function_call_output') return message('done', { input: 100, cached: 0, output: 5 });
  const task = taskIn(prompt);
  return execCommand(addFileCommand(`${task}.txt`, `${task} by codex\n`), { input: 1000, cached: 0, output: 50 });
}

describe('an agent per role, through the real claude and codex CLIs', () => {
  it('acts with Claude Code, reviews with Codex, and gives a task the actor its plan names', TIMEOUT, async () => {
    anthropic.scenario(MARKER, claudeModel);
    openai.script(Array.from({ length: 30 }, () => codexModel));
    const r = makeTempRepo({ files: { 'README.md': '# sample\n' } });
    repos.push(r);
    const task = (id: string, extra: object = {}) => ({ id, title: `Write ${id}.txt`, description: `Create ${id}.txt (${MARKER})`, acceptance: [], dependsOn: [], ...extra });
    const plan = { goal: `two vendors (${MARKER})`, tasks: [task('by-claude'), task('by-codex', { agent: 'codex', model: 'gpt-5-codex-mini' })] };
    const args = ['run', '--cwd', r.dir, '--plan', writeInputs({ 'plan.json': plan })['plan.json']!, '--yes', '--gate', 'test -f by-claude.txt || test -f by-codex.txt', '--on-base-failure', 'required'];
    args.push('--actor-agent', 'claude', '--claude-path', join(BIN, 'claude'), '--actor-model', 'claude-scripted-1');
    args.push('--critic-agent', 'codex', '--codex-path', join(BIN, 'codex'), '--critic-model', 'gpt-5-codex', '--stuck-seconds', '60');
    args.push(...codexConfigFlags(openai));
    const env = { ...claudeTestEnv({ home, baseUrl: anthropic.url, marker: MARKER }), ...codexTestEnv(codexHome) };

    const result = await startCli(args, env).done;
    assert.equal(result.code, 0, result.stdout + result.stderr);

    const [runId] = readdirSync(join(r.dir, '.taskloom', 'runs'));
    const log = readFileSync(join(r.dir, '.taskloom', 'runs', runId!, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as RunEvent);
    const calls = log.flatMap((e) => (e.type === 'runner_call' ? [`${e.role} ${e.taskId} ${e.agent} ${e.status}`] : []));
    assert.deepEqual(calls.sort(), ['actor by-claude claude ok', 'actor by-codex codex ok', 'critic by-claude codex ok', 'critic by-codex codex ok']);
    const codexModels = openai.responseRequests().map((q) => [taskIn(JSON.stringify(q.body?.input ?? '')), JSON.stringify(q.body?.input ?? '').includes('Review the change') ? 'review' : 'act', q.body?.model]);
    assert.ok(codexModels.some(([, what, model]) => what === 'review' && model === 'gpt-5-codex'), JSON.stringify(codexModels));
    assert.ok(codexModels.some(([t, what, model]) => t === 'by-codex' && what === 'act' && model === 'gpt-5-codex-mini'), 'the task names its own model');

    const trace = JSON.parse(runCli(['trace', '--json', '--cwd', r.dir]).stdout) as TraceReport;
    assert.deepEqual(trace.tasks.map((t) => t.state), ['MERGED', 'MERGED']);
    assert.deepEqual(Object.keys(trace.usage.byAgent).sort(), ['claude', 'codex']);
    assert.equal(trace.usage.byAgent.codex!.outputTokens, 30 + 30 + 50 + 5, 'two reviews and one act (two turns) by codex');
    const branch = trace.integration.branch!;
    assert.equal(r.git(['show', `${branch}:by-claude.txt`]), 'by-claude by claude');
    assert.equal(r.git(['show', `${branch}:by-codex.txt`]), 'by-codex by codex');
    const trailers = r.git(['log', '--format=%(trailers:key=Taskloom-Agent,valueonly)', branch]).split('\n').filter(Boolean);
    assert.ok(trailers.some((t) => t.startsWith('claude')) && trailers.some((t) => t.startsWith('codex')), trailers.join(' | '));
  });
});
