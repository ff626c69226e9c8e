import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findPackageRoot } from '../../src/engine/process/packageRoot';
import type { TraceReport } from '../../src/engine/report/traceReport';
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
  type Reply,
} from '../helpers/openaiServer';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

/**
 * Whole Taskloom runs through the REAL codex binary: the scripted Responses API server on
 * 127.0.0.1 plays the model; codex really edits the worktrees; Taskloom runs the gate, asks
 * for the critic's verdict and merges.
 */
const CODEX = join(findPackageRoot(__dirname), 'node_modules', '.bin', 'codex');
const TIMEOUT = 180_000;

let server: OpenAIServer;
let codexHome: string;
const repos: TempRepo[] = [];
before(async () => {
  server = await startOpenAIServer();
  codexHome = makeCodexHome();
});
after(async () => {
  await server.close();
  rmSync(codexHome, { recursive: true, force: true });
  repos.forEach((r) => r.cleanup());
});

const prompt = (r: RecordedRequest) => JSON.stringify(r.body?.input ?? '');
const taskOf = (r: RecordedRequest) => /Task ([a-z0-9-]+): /.exec(prompt(r))?.[1] ?? 'unknown';
const verdict = (decision: 'green' | 'changes_required', summary: string) =>
  message(JSON.stringify({ decision, summary, findings: decision === 'green' ? [] : [{ file: null, line: null, severity: 'major', category: 'requirements', message: summary }] }));

/** The model's behaviour: actors write `<task>.txt` (the content decided by `content`), critics answer `review`. */
function model(content: (task: string, attempt: number) => string, review: (task: string, n: number) => Reply) {
  const actorTurns = new Map<string, number>();
  const reviews = new Map<string, number>();
  return (r: RecordedRequest): Reply => {
    const task = taskOf(r);
    if (prompt(r).includes('Review the change made for task')) {
      const n = (reviews.get(task) ?? 0) + 1;
      reviews.set(task, n);
      return review(task, n);
    }
    // After its own tool call the model wraps up; a new user turn (first or resumed) asks for an edit.
    if (r.body?.input?.at(-1)?.type === 'function_call_output') return message(`done with ${task}`);
    const attempt = (actorTurns.get(task) ?? 0) + 1;
    actorTurns.set(task, attempt);
    return execCommand(addFileCommand(`${task}.txt`, content(task, attempt)), { input: 1000, cached: 200, output: 50 });
  };
}

async function runWithCodex(plan: object, gate: string, replyFor: (r: RecordedRequest) => Reply) {
  server.script(Array.from({ length: 60 }, () => replyFor));
  const r = makeTempRepo();
  repos.push(r);
  const inputs = writeInputs({ 'plan.json': plan });
  const args = ['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--yes', '--agent', 'codex', '--codex-path', CODEX, '--model', 'gpt-5-codex', '--gate', gate, '--stuck-seconds', '60', '--on-base-failure', 'required'];
  const result = await startCli([...args, ...codexConfigFlags(server)], codexTestEnv(codexHome)).done;
  const trace = JSON.parse(runCli(['trace', '--json', '--cwd', r.dir]).stdout) as TraceReport;
  assert.deepEqual(server.unscripted.map((u) => u.path), [], 'every model request was answered');
  return { r, result, trace };
}

const task = (id: string, dependsOn: string[] = []) => ({ id, title: `Write ${id}.txt`, description: `Create ${id}.txt`, acceptance: [], dependsOn });

describe('whole runs through the real codex CLI', () => {
  it('runs a two-task plan to green and merges it', { timeout: TIMEOUT }, async () => {
    const { r, result, trace } = await runWithCodex(
      { goal: 'two files', tasks: [task('first'), task('second', ['first'])] },
      'test -f first.txt',
      model((t) => `${t} by codex\n`, () => verdict('green', 'looks right')),
    );
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.deepEqual(trace.tasks.map((t) => t.state), ['MERGED', 'MERGED']);
    assert.equal(r.git(['show', `${trace.integration.branch}:second.txt`]), 'second by codex');
    assert.equal(r.git(['show', `${trace.integration.branch}:first.txt`]), 'first by codex');
    assert.equal(trace.usage.byRole.actor!.cacheReadTokens, 400, 'two actor turns with 200 cached tokens each');
    assert.ok(trace.usage.total.costUsd > 0, 'cost from the price table');
  });

  it('hands the gate failure back to codex, which fixes it in the same thread', { timeout: TIMEOUT }, async () => {
    const { result, trace } = await runWithCodex(
      { goal: 'fix on retry', tasks: [task('only')] },
      'grep -q fixed only.txt',
      model((t, attempt) => (attempt === 1 ? `${t} broken\n` : `${t} fixed\n`), () => verdict('green', 'fixed now')),
    );
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const only = trace.tasks[0]!;
    assert.equal(only.state, 'MERGED');
    assert.equal(only.gateFailures, 1);
    assert.ok(only.transitions.some((t) => t.event === 'RETRY_BUILD' && /exited 1/.test(t.reason)));
  });
});
