import assert from 'node:assert/strict';
import { launchUnconfined } from '../../src/engine/process/launcher';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { ClaudeRunner } from '../../src/engine/agents/claude/claudeRunner';
import { findPackageRoot } from '../../src/engine/process/packageRoot';
import type { RunEvent } from '../../src/engine/domain/events';
import type { TokenUsage } from '../../src/engine/domain/usage';
import type { TraceReport } from '../../src/engine/report/traceReport';
import { runCli, startCli, writeInputs, type CliResult } from '../helpers/cli';
import {
  endsWithToolResult,
  lastUserText,
  startAnthropicServer,
  type AnthropicServer,
  type ApiUsage,
  type MessagesRequest,
  type RecordedRequest,
  type Scenario,
  type ScriptedReply,
} from '../helpers/anthropicServer';
import { claudeTestEnv, leftovers } from '../helpers/claudeEnv';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

/**
 * Whole Taskloom runs through the REAL claude binary (the dev dependency): the scripted
 * Messages API server on 127.0.0.1 plays the model for the planner, the actor and the critic;
 * claude really writes the files in the worktrees; Taskloom runs the gate, reads the verdicts,
 * merges, and records every call. One server for the file: each test routes its conversations
 * by a marker that is in its goal and in every task description (so in every prompt).
 *
 * The CLI runs asynchronously (startCli): the server lives in this process, and a synchronous
 * spawn would block it.
 */
const CLAUDE = join(findPackageRoot(__dirname), 'node_modules', '.bin', 'claude');
const TEST_TIMEOUT = { timeout: 240_000 };
/** Every `taskloom run` / `resume` is killed (and the test fails) past this. */
const CLI_TIMEOUT_MS = 180_000;
const MODEL = 'claude-scripted-1';

let server: AnthropicServer;
let home: string;
const repos: TempRepo[] = [];
const markers: string[] = [];

before(async () => {
  server = await startAnthropicServer();
  home = realpathSync(mkdtempSync(join(tmpdir(), 'taskloom-claude-run-home-')));
});
after(async () => {
  const unknownPaths = [...(server?.unknownPaths ?? [])];
  const strays = markers.flatMap((m) => leftovers(m));
  await server?.close();
  for (const repo of repos) repo.cleanup();
  if (home) rmSync(home, { recursive: true, force: true });
  assert.deepEqual(unknownPaths, [], 'the CLI asked nothing the server does not know');
  assert.deepEqual(strays, [], 'no process of any case is left running');
});

// ---------------------------------------------------------------------------------------------
// Environment, processes, the CLI

function testEnv(marker: string): NodeJS.ProcessEnv {
  return claudeTestEnv({ home, baseUrl: server.url, marker });
}

/** Runs a taskloom command to its end, asynchronously; killed (process group) and failed past the timeout. */
async function taskloom(args: string[], marker: string, timeoutMs = CLI_TIMEOUT_MS): Promise<CliResult> {
  const { child, done } = startCli(args, testEnv(marker));
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      reject(new Error(`taskloom ${args[0]} did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([done, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function repo(): TempRepo {
  const r = makeTempRepo({ files: { 'README.md': '# sample\n' } });
  repos.push(r);
  return r;
}

/** `run` with the claude agent; `plan` is a plan object (written to a file) or undefined for `--goal`. */
function runArgs(r: TempRepo, source: { plan: object } | { goal: string }, gate: string, ...flags: string[]): string[] {
  const from = 'plan' in source ? ['--plan', writeInputs({ 'plan.json': source.plan })['plan.json']!] : ['--goal', source.goal];
  return ['run', '--cwd', r.dir, ...from, '--yes', '--agent', 'claude', '--claude-path', CLAUDE, '--model', MODEL, '--gate', gate, '--on-base-failure', 'required', ...flags];
}

function trace(r: TempRepo): TraceReport {
  const result = runCli(['trace', '--json', '--cwd', r.dir]);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as TraceReport;
}

function events(r: TempRepo, runId: string): RunEvent[] {
  const text = readFileSync(join(r.dir, '.taskloom', 'runs', runId, 'events.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as RunEvent);
}

type RunnerCall = Extract<RunEvent, { type: 'runner_call' }>;
const runnerCalls = (list: RunEvent[], role?: string): RunnerCall[] =>
  list.filter((e): e is RunnerCall => e.type === 'runner_call' && (role === undefined || e.role === role));

const show = (r: TempRepo, ref: string, file: string) => r.git(['show', `${ref}:${file}`]);
const output = (result: CliResult) => `\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;

// ---------------------------------------------------------------------------------------------
// The scripted model

type Role = 'planner' | 'plan-review' | 'actor' | 'critic';

const conversation = (r: MessagesRequest) => JSON.stringify(r.messages);

/** Which Taskloom role a request belongs to: the role brief is in the system prompt. */
function roleOf(r: MessagesRequest): Role | undefined {
  if (r.system.includes('planner of a Taskloom run')) return 'planner';
  if (r.system.includes('critic of a Taskloom task')) return conversation(r).includes('Review this plan for the goal') ? 'plan-review' : 'critic';
  if (r.system.includes('actor of a Taskloom task')) return 'actor';
  return undefined;
}

function taskOf(r: MessagesRequest, role: Role): string {
  const pattern = role === 'critic' ? /Review the change made for task ([a-z0-9._-]+):/ : /Task ([a-z0-9._-]+): /;
  return pattern.exec(conversation(r))?.[1] ?? 'unknown';
}

/** The worktree claude runs in, as its environment block tells the model. */
function cwdOf(r: MessagesRequest): string {
  const cwd = /Primary working directory: ([^\\"]+)/.exec(JSON.stringify(r.raw))?.[1];
  if (!cwd) throw new Error('no working directory in the request');
  return cwd;
}

/** Distinct figures per kind of request, so a wrong sum (or a cumulative one) shows. */
const USAGE = {
  planner: { input_tokens: 2100, output_tokens: 310, cache_read_input_tokens: 0, cache_creation_input_tokens: 1700 },
  planReview: { input_tokens: 1300, output_tokens: 45, cache_read_input_tokens: 200, cache_creation_input_tokens: 900 },
  actorWrite: (attempt: number) => ({ input_tokens: 1000 + 111 * attempt, output_tokens: 70, cache_read_input_tokens: 7 * attempt, cache_creation_input_tokens: 1100 }),
  actorDone: { input_tokens: 1500, output_tokens: 25, cache_read_input_tokens: 1300, cache_creation_input_tokens: 60 },
  critic: { input_tokens: 900, output_tokens: 40, cache_read_input_tokens: 100, cache_creation_input_tokens: 800 },
} satisfies Record<string, ApiUsage | ((n: number) => ApiUsage)>;

interface Finding {
  file: string | null;
  line: number | null;
  severity: 'blocker' | 'major' | 'minor' | 'nit';
  category: 'correctness' | 'requirements' | 'test-integrity' | 'breakage' | 'security' | 'style' | 'other';
  message: string;
}

/** A verdict as Claude Code's structured output: a call of the StructuredOutput tool. */
const verdict = (decision: 'green' | 'changes_required', summary: string, findings: Finding[] = [], usage: ApiUsage = USAGE.critic): ScriptedReply => ({
  type: 'tool_use',
  name: 'StructuredOutput',
  input: { decision, summary, findings },
  usage,
});

/** What the actor does in attempt n: write a file (through the Write tool), or any scripted reply. */
type ActorStep = { write: string; content: string } | ScriptedReply;

interface Behaviour {
  /** The planner's plan (structured output). */
  plan?: Record<string, unknown>;
  actor: (task: string, attempt: number) => ActorStep;
  critic?: (task: string, review: number) => ScriptedReply;
}

/**
 * The model of one case. An actor turn that starts with a new prompt (first or resumed) is the
 * next attempt: it writes its file; after claude ran the tool, the model wraps up.
 */
function model(behaviour: Behaviour) {
  const attempts = new Map<string, number>();
  const reviews = new Map<string, number>();
  return (request: MessagesRequest): ScriptedReply => {
    const role = roleOf(request);
    switch (role) {
      case 'planner':
        if (!behaviour.plan) throw new Error('no plan scripted');
        return { type: 'tool_use', name: 'StructuredOutput', input: behaviour.plan, usage: USAGE.planner };
      case 'plan-review':
        return verdict('green', 'the plan covers the goal', [], USAGE.planReview);
      case 'actor': {
        const task = taskOf(request, role);
        if (endsWithToolResult(request)) return { type: 'text', text: `Wrote the file for ${task}.`, usage: USAGE.actorDone };
        const attempt = (attempts.get(task) ?? 0) + 1;
        attempts.set(task, attempt);
        const step = behaviour.actor(task, attempt);
        if (!('write' in step)) return step;
        return {
          type: 'tool_use',
          name: 'Write',
          text: `Writing ${step.write}.`,
          input: { file_path: join(cwdOf(request), step.write), content: step.content },
          usage: USAGE.actorWrite(attempt),
        };
      }
      case 'critic': {
        const task = taskOf(request, role);
        if (endsWithToolResult(request)) return { type: 'text', text: 'Done.', usage: USAGE.critic };
        const review = (reviews.get(task) ?? 0) + 1;
        reviews.set(task, review);
        return (behaviour.critic ?? (() => verdict('green', 'looks right')))(task, review);
      }
      default:
        throw new Error(`a request of no Taskloom role (system: ${request.system.slice(0, 80)}…)`);
    }
  };
}

function scenario(marker: string, behaviour: Behaviour): Scenario {
  markers.push(marker);
  return server.scenario(marker, model(behaviour));
}

const requestsOf = (s: Scenario, role: Role): RecordedRequest[] => s.requests.filter((r) => r.request && roleOf(r.request) === role);
/** The first request of each actor/critic call: a new prompt, not the follow-up after a tool ran. */
const turnStarts = (s: Scenario, role: Role): RecordedRequest[] => requestsOf(s, role).filter((r) => !endsWithToolResult(r.request!));

const ZERO: ApiUsage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
function served(list: RecordedRequest[]): Omit<TokenUsage, 'costUsd'> {
  const u = list.reduce<ApiUsage>(
    (sum, r) => ({
      input_tokens: sum.input_tokens + (r.usage?.input_tokens ?? 0),
      output_tokens: sum.output_tokens + (r.usage?.output_tokens ?? 0),
      cache_read_input_tokens: sum.cache_read_input_tokens + (r.usage?.cache_read_input_tokens ?? 0),
      cache_creation_input_tokens: sum.cache_creation_input_tokens + (r.usage?.cache_creation_input_tokens ?? 0),
    }),
    ZERO,
  );
  return { inputTokens: u.input_tokens, outputTokens: u.output_tokens, cacheReadTokens: u.cache_read_input_tokens, cacheWriteTokens: u.cache_creation_input_tokens };
}
const tokens = (u: TokenUsage | undefined): Omit<TokenUsage, 'costUsd'> => {
  assert.ok(u, 'usage recorded');
  return { inputTokens: u.inputTokens, outputTokens: u.outputTokens, cacheReadTokens: u.cacheReadTokens, cacheWriteTokens: u.cacheWriteTokens };
};
const sumCalls = (calls: RunnerCall[]): Omit<TokenUsage, 'costUsd'> =>
  calls.reduce(
    (s, c) => ({
      inputTokens: s.inputTokens + c.usage.inputTokens,
      outputTokens: s.outputTokens + c.usage.outputTokens,
      cacheReadTokens: s.cacheReadTokens + c.usage.cacheReadTokens,
      cacheWriteTokens: s.cacheWriteTokens + c.usage.cacheWriteTokens,
    }),
    { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
  );

/** Requests that mention the case but went to no scenario (a side request whose usage claude might count). */
const unrouted = (marker: string) => server.requests.filter((r) => r.request && r.marker === undefined && conversation(r.request).includes(marker));

const sessionOf = (r: RecordedRequest) => r.headers['x-claude-code-session-id'];

/** Taskloom's prompt in the latest user turn, without the context blocks Claude Code adds to it. */
function promptOf(request: MessagesRequest): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const m = request.messages[i]!;
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    const texts = (m.content as Array<{ type?: string; text?: string }>)
      .filter((b) => b.type === 'text' && !b.text!.startsWith('<system-reminder>'))
      .map((b) => b.text!);
    if (texts.length) return texts.join('\n');
  }
  return '';
}

/** Tool results claude reported as errors in these requests (a refused or failed Write). */
const toolErrors = (list: RecordedRequest[]) =>
  list.flatMap((r) =>
    (Array.isArray(r.request!.messages.at(-1)?.content) ? (r.request!.messages.at(-1)!.content as Array<Record<string, unknown>>) : []).filter(
      (b) => b.type === 'tool_result' && b.is_error === true,
    ),
  );

/** Every Write the actor asked for was carried out (claude refuses some paths, e.g. under .git/). */
function assertWritesAccepted(s: Scenario): void {
  const refused = toolErrors(requestsOf(s, 'actor')).map((b) => JSON.stringify(b.content));
  assert.deepEqual(refused, [], 'claude refused the Write tool');
}

const planTask = (marker: string, id: string, dependsOn: string[] = []) => ({
  id,
  title: `Write ${id}.txt`,
  description: `${marker} Create ${id}.txt.`,
  acceptance: [`${id}.txt exists`],
  dependsOn,
  files: [`${id}.txt`],
});

function lastTransition(t: TraceReport['tasks'][number]) {
  const last = t.transitions.at(-1);
  assert.ok(last, `${t.id} has transitions`);
  return last;
}

// ---------------------------------------------------------------------------------------------

describe('whole runs through the real claude CLI', { concurrency: 3 }, () => {
  it('plans the goal, builds two dependent tasks, reviews them green and merges both', TEST_TIMEOUT, async () => {
    const marker = '[run-green]';
    const goal = `${marker} Add alpha.txt and beta.txt`;
    const plan = { goal, rationale: 'beta builds on alpha', tasks: [planTask(marker, 'alpha'), planTask(marker, 'beta', ['alpha'])] };
    const s = scenario(marker, { plan, actor: (task) => ({ write: `${task}.txt`, content: `${task} by claude\n` }) });
    const r = repo();

    const result = await taskloom(runArgs(r, { goal }, 'test -f alpha.txt'), marker);
    assertWritesAccepted(s);
    assert.equal(result.code, 0, output(result));
    const t = trace(r);
    assert.equal(t.status, 'completed');
    assert.deepEqual(
      t.tasks.map((x) => [x.id, x.state, x.dependsOn]),
      [
        ['alpha', 'MERGED', []],
        ['beta', 'MERGED', ['alpha']],
      ],
    );
    assert.deepEqual(t.integration.merged, ['alpha', 'beta']);
    assert.equal(t.integration.gatePassed, true);
    assert.equal(show(r, t.integration.branch!, 'alpha.txt'), 'alpha by claude');
    assert.equal(show(r, t.integration.branch!, 'beta.txt'), 'beta by claude');

    // The planner and the plan's reviewer were asked once each, read-only, with the schema's tool.
    const planner = requestsOf(s, 'planner');
    assert.equal(planner.length, 1);
    assert.ok(planner[0]!.request!.tools.includes('StructuredOutput'));
    assert.ok(!planner[0]!.request!.tools.includes('Write'), 'the planner cannot write');
    assert.match(lastUserText(planner[0]!.request!), /Plan this goal as a small graph of tasks/);
    assert.equal(requestsOf(s, 'plan-review').length, 1);
    const log = events(r, t.runId);
    const proposed = log.filter((e) => e.type === 'plan_proposed');
    assert.equal(proposed.length, 1);
    const reviewed = log.find((e) => e.type === 'plan_reviewed');
    assert.ok(reviewed && reviewed.type === 'plan_reviewed' && reviewed.verdict.decision === 'green');

    // The dependent task started after its dependency was green, from its code.
    const betaStart = turnStarts(s, 'actor').find((x) => taskOf(x.request!, 'actor') === 'beta')!;
    const alphaGreen = log.find((e) => e.type === 'task_transition' && e.taskId === 'alpha' && e.to === 'GREEN')!;
    const betaWorktree = log.find((e) => e.type === 'worktree_prepared' && e.taskId === 'beta');
    assert.ok(betaWorktree && betaWorktree.type === 'worktree_prepared');
    assert.ok(alphaGreen.seq < betaWorktree.seq);
    assert.equal(cwdOf(betaStart.request!), betaWorktree.path);

    // Usage per role: exactly what the server reported, to the token; claude computed a cost.
    assert.deepEqual(unrouted(marker), []);
    assert.deepEqual(tokens(t.usage.byRole.planner), served(requestsOf(s, 'planner')));
    assert.deepEqual(tokens(t.usage.byRole.actor), served(requestsOf(s, 'actor')));
    assert.deepEqual(tokens(t.usage.byRole.critic), served([...requestsOf(s, 'plan-review'), ...requestsOf(s, 'critic')]));
    assert.deepEqual(tokens(t.usage.total), served(s.requests));
    assert.equal(t.usage.calls, 6, 'planner, plan review, two actors, two critics');
    assert.ok(t.usage.total.costUsd > 0);
    assert.deepEqual(leftovers(marker), []);
  });

  it('resolves a merge conflict between two tasks: the resolver sees both sides, the gate and the critic check the resolution', TEST_TIMEOUT, async () => {
    const marker = '[run-conflict]';
    const task = (id: string, line: string) => ({
      id,
      title: `Add the ${id} line`,
      description: `${marker} Write shared.txt holding the line "${line}".`,
      acceptance: [`shared.txt holds "${line}"`],
      dependsOn: [],
    });
    const plan = { goal: `${marker} two lines in one file`, tasks: [task('north', 'north line'), task('south', 'south line')] };
    const resolving = (r: MessagesRequest) => conversation(r).includes('You are resolving a merge conflict');
    const write = (r: MessagesRequest, content: string, usage: ApiUsage): ScriptedReply => ({
      type: 'tool_use',
      name: 'Write',
      text: 'Writing shared.txt.',
      input: { file_path: join(cwdOf(r), 'shared.txt'), content },
      usage,
    });
    markers.push(marker);
    const s = server.scenario(marker, (request) => {
      const role = roleOf(request);
      if (endsWithToolResult(request)) return { type: 'text', text: 'Done.', usage: USAGE.actorDone };
      if (role === 'critic') return verdict('green', resolving(request) || conversation(request).includes('merge-conflict resolution') ? 'both lines kept' : 'right');
      if (role !== 'actor') throw new Error(`unexpected ${role} request`);
      if (resolving(request)) return write(request, 'north line\nsouth line\n', USAGE.actorWrite(2));
      const id = taskOf(request, role);
      return write(request, `${id} line\n`, USAGE.actorWrite(1));
    });
    const r = repo();

    const result = await taskloom(runArgs(r, { plan }, 'test -s shared.txt', '--overlap', 'off', '--parallel', '2'), marker);
    assertWritesAccepted(s);
    assert.equal(result.code, 0, output(result));
    const t = trace(r);
    assert.equal(t.status, 'completed');
    assert.deepEqual(t.tasks.map((x) => x.state), ['MERGED', 'MERGED']);
    assert.equal(show(r, t.integration.branch!, 'shared.txt'), 'north line\nsouth line');

    // The resolver was the real claude, in the conflicted worktree, shown both sides and both intents.
    const resolver = turnStarts(s, 'actor').filter((x) => resolving(x.request!));
    assert.equal(resolver.length, 1);
    const prompt = promptOf(resolver[0]!.request!);
    assert.match(prompt, /<<<<<<< /);
    assert.match(prompt, /Write shared\.txt holding the line "north line"/);
    assert.match(prompt, /Write shared\.txt holding the line "south line"/);
    const resolverTask = t.tasks.find((x) => x.mergeConflicts === 1)!;
    assert.equal(cwdOf(resolver[0]!.request!), join(r.dir, '.taskloom', 'worktrees', t.runId, resolverTask.id));
    // …then the gate ran on the resolution and the critic reviewed it as a resolution, against both parents.
    const after = resolverTask.transitions.slice(resolverTask.transitions.findIndex((x) => x.event === 'RESOLVE_STARTED')).map((x) => x.event);
    assert.deepEqual(after, ['RESOLVE_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN', 'MERGE_STARTED', 'MERGE_VERIFIED']);
    const review = turnStarts(s, 'critic').find((x) => conversation(x.request!).includes('merge-conflict resolution'));
    assert.ok(review, 'the critic was told it reviews a conflict resolution');
    assert.match(promptOf(review.request!), /against the integration branch it merged[\s\S]*against the task's own approved work/);
  });

  it('hands a gate failure back to the same claude session (--resume), which fixes it', TEST_TIMEOUT, async () => {
    const marker = '[run-gatefix]';
    const plan = { goal: `${marker} fix on retry`, tasks: [planTask(marker, 'delta')] };
    const s = scenario(marker, {
      actor: (task, attempt) => ({ write: `${task}.txt`, content: attempt === 1 ? `${task} broken\n` : `${task} fixed\n` }),
    });
    const r = repo();

    const result = await taskloom(runArgs(r, { plan }, 'grep -q fixed delta.txt'), marker);
    assertWritesAccepted(s);
    assert.equal(result.code, 0, output(result));
    const t = trace(r);
    const task = t.tasks[0]!;
    assert.equal(task.state, 'MERGED');
    assert.equal(task.attempts, 2);
    assert.equal(task.gateFailures, 1);
    assert.ok(task.transitions.some((x) => x.event === 'RETRY_BUILD' && /grep -q fixed delta\.txt` exited 1/.test(x.reason)));
    assert.equal(show(r, t.integration.branch!, 'delta.txt'), 'delta fixed');

    // The second attempt continued the first conversation: the server saw the earlier turns.
    const [first, second] = turnStarts(s, 'actor');
    assert.ok(first && second && turnStarts(s, 'actor').length === 2);
    const history = conversation(second.request!);
    assert.equal(history.split('You are working on one task').length - 1, 2, 'both prompts are in the resumed conversation');
    assert.match(history, /delta broken/, "attempt 1's Write is in the history");
    assert.match(history, /Wrote the file for delta\./, "attempt 1's answer is in the history");
    assert.match(lastUserText(second.request!), /The mechanical gate failed on your previous attempt/);
    assert.ok(second.request!.messages.length > first.request!.messages.length);
    assert.equal(sessionOf(second), sessionOf(first));

    // The runner_call events: attempt 2 is marked resumed, under the same session id.
    const calls = runnerCalls(events(r, t.runId), 'actor');
    assert.equal(calls.length, 2);
    assert.equal(calls[0]!.resumed, undefined);
    assert.equal(calls[1]!.resumed, true);
    assert.ok(calls[0]!.sessionId);
    assert.equal(calls[1]!.sessionId, calls[0]!.sessionId);
    assert.equal(calls[0]!.sessionId, sessionOf(first));

    // Usage: each call counts only its own requests (deltas), so the sum is what the server reported.
    assert.deepEqual(unrouted(marker), []);
    const actorRequests = requestsOf(s, 'actor');
    assert.equal(actorRequests.length, 4, 'Write and wrap-up, twice');
    assert.deepEqual(sumCalls(calls), served(actorRequests));
    assert.deepEqual(tokens(t.usage.byRole.actor), served(actorRequests));
    assert.deepEqual(tokens(calls[1]!.usage), served(actorRequests.slice(2)), 'the resumed call reports only its own two requests');
    assert.deepEqual(leftovers(marker), []);
  });

  it("hands the critic's blocking finding back to the actor; the second review is green", TEST_TIMEOUT, async () => {
    const marker = '[run-critic]';
    const plan = { goal: `${marker} critic loop`, tasks: [planTask(marker, 'gamma')] };
    const finding: Finding = { file: 'gamma.txt', line: 1, severity: 'major', category: 'requirements', message: 'gamma.txt must say "approved"' };
    const s = scenario(marker, {
      actor: (task, attempt) => ({ write: `${task}.txt`, content: attempt === 1 ? 'draft\n' : 'approved\n' }),
      critic: (_task, review) => (review === 1 ? verdict('changes_required', 'not approved yet', [finding]) : verdict('green', 'approved now')),
    });
    const r = repo();

    const result = await taskloom(runArgs(r, { plan }, 'test -f gamma.txt'), marker);
    assertWritesAccepted(s);
    assert.equal(result.code, 0, output(result));
    const t = trace(r);
    const task = t.tasks[0]!;
    assert.equal(task.state, 'MERGED');
    assert.equal(task.attempts, 2);
    assert.equal(task.reviewCycles, 1);
    assert.equal(task.gateFailures, 0);
    const changes = task.transitions.find((x) => x.event === 'CRITIC_CHANGES_REQUIRED');
    assert.ok(changes && /not approved yet \(1 blocking\)/.test(changes.reason), JSON.stringify(task.transitions));
    assert.ok(task.transitions.some((x) => x.event === 'RETRY_BUILD' && /1 critic finding/.test(x.reason)));
    assert.deepEqual(task.transitions.slice(-3).map((x) => x.event), ['CRITIC_GREEN', 'MERGE_STARTED', 'MERGE_VERIFIED']);
    assert.equal(show(r, t.integration.branch!, 'gamma.txt'), 'approved');

    const verdicts = events(r, t.runId).filter((e) => e.type === 'critic_verdict');
    assert.deepEqual(
      verdicts.map((e) => e.type === 'critic_verdict' && [e.review, e.verdict.decision, e.blocking]),
      [
        [1, 'changes_required', 1],
        [2, 'green', 0],
      ],
    );
    // The finding reached the actor; the second review saw the fixed diff.
    const actorTurns = turnStarts(s, 'actor');
    assert.equal(actorTurns.length, 2);
    assert.match(lastUserText(actorTurns[1]!.request!), /gamma\.txt:1 \[requirements\] gamma\.txt must say "approved"/);
    const reviews = turnStarts(s, 'critic');
    assert.equal(reviews.length, 2);
    assert.match(lastUserText(reviews[0]!.request!), /\+draft/);
    assert.match(lastUserText(reviews[1]!.request!), /\+approved/);
    assert.deepEqual(tokens(t.usage.byRole.critic), served(requestsOf(s, 'critic')));
    assert.deepEqual(leftovers(marker), []);
  });

  it('gives up with MALFORMED_GIVEUP when the critic answers prose twice', TEST_TIMEOUT, async () => {
    const marker = '[run-prose]';
    const plan = { goal: `${marker} unreadable critic`, tasks: [planTask(marker, 'epsilon')] };
    const s = scenario(marker, {
      actor: (task) => ({ write: `${task}.txt`, content: 'epsilon\n' }),
      critic: () => ({ type: 'text', text: 'Honestly this looks fine to me, ship it.', usage: USAGE.critic }),
    });
    const r = repo();

    const result = await taskloom(runArgs(r, { plan }, 'test -f epsilon.txt'), marker);
    assertWritesAccepted(s);
    assert.equal(result.code, 1, output(result));
    const t = trace(r);
    assert.equal(t.status, 'needs_human');
    const task = t.tasks[0]!;
    assert.equal(task.state, 'NEEDS_HUMAN');
    const last = lastTransition(task);
    assert.equal(last.event, 'MALFORMED_GIVEUP', JSON.stringify(task.transitions));
    assert.match(last.reason, /critic gave no valid verdict after one repair attempt: Honestly this looks fine/);

    // Two critic calls: the question, then the repair request in the same session.
    const calls = runnerCalls(events(r, t.runId), 'critic');
    assert.equal(calls.length, 2);
    assert.deepEqual(calls.map((c) => c.status), ['ok', 'ok']);
    assert.equal(calls[1]!.resumed, true);
    assert.equal(calls[1]!.sessionId, calls[0]!.sessionId);
    assert.ok(requestsOf(s, 'critic').some((x) => /Your previous answer was not a valid verdict/.test(lastUserText(x.request!))), 'the repair prompt reached the model');
    assert.equal(t.integration.merged.length, 0);
    assert.deepEqual(leftovers(marker), []);
  });

  it('pauses the run on HTTP 429 and completes it on `taskloom resume`', TEST_TIMEOUT, async () => {
    const marker = '[run-quota]';
    const plan = { goal: `${marker} quota`, tasks: [planTask(marker, 'zeta')] };
    let quota = true;
    const s = scenario(marker, {
      actor: (task) =>
        quota
          ? { type: 'http_error', status: 429, message: 'Number of request tokens has exceeded your per-minute rate limit' }
          : { write: `${task}.txt`, content: 'zeta\n' },
    });
    const r = repo();

    const first = await taskloom(runArgs(r, { plan }, 'test -f zeta.txt'), marker);
    assert.equal(first.code, 1, output(first));
    assert.match(first.stdout, /paused/);
    let t = trace(r);
    assert.equal(t.status, 'paused');
    assert.equal(t.tasks[0]!.state, 'PENDING');
    assert.equal(lastTransition(t.tasks[0]!).event, 'QUOTA_EXHAUSTED');
    const quotaCalls = runnerCalls(events(r, t.runId), 'actor');
    assert.equal(quotaCalls.length, 1);
    assert.equal(quotaCalls[0]!.status, 'quota');
    assert.equal(quotaCalls[0]!.quotaHit, true);
    const hits = requestsOf(s, 'actor').length;
    assert.ok(hits >= 2 && hits <= 3, `claude retried the 429 at most twice (${hits} requests)`);
    assert.deepEqual(leftovers(marker), []);

    quota = false;
    const resumed = await taskloom(['resume', '--cwd', r.dir], marker);
    assertWritesAccepted(s);
    assert.equal(resumed.code, 0, output(resumed));
    t = trace(r);
    assert.equal(t.status, 'completed');
    assert.equal(t.tasks[0]!.state, 'MERGED');
    assert.equal(show(r, t.integration.branch!, 'zeta.txt'), 'zeta');
    const calls = runnerCalls(events(r, t.runId));
    assert.deepEqual(
      calls.map((c) => [c.role, c.status]),
      [
        ['actor', 'quota'],
        ['actor', 'ok'],
        ['critic', 'ok'],
      ],
    );
    assert.deepEqual(tokens(t.usage.byRole.actor), served(requestsOf(s, 'actor')), 'the 429s cost nothing');
    assert.deepEqual(leftovers(marker), []);
  });

  it('stops a model stream that never finishes after --stuck-seconds and leaves no process', TEST_TIMEOUT, async () => {
    const marker = '[run-hang]';
    const plan = { goal: `${marker} hang`, tasks: [planTask(marker, 'eta')] };
    const s = scenario(marker, { actor: () => ({ type: 'hang' }) });
    const r = repo();

    // Long enough for claude to start and send its request on a loaded machine.
    const result = await taskloom(runArgs(r, { plan }, 'test -f eta.txt', '--stuck-seconds', '10'), marker, 120_000);
    assert.equal(result.code, 1, output(result));
    const t = trace(r);
    const task = t.tasks[0]!;
    assert.equal(task.state, 'NEEDS_HUMAN');
    const last = lastTransition(task);
    assert.equal(last.event, 'STUCK_ABORTED', JSON.stringify(task.transitions));
    assert.match(last.reason, /actor showed no activity for 10s and was stopped/);
    const [call] = runnerCalls(events(r, t.runId), 'actor');
    assert.equal(call!.status, 'idle_timeout');
    assert.ok(call!.durationMs >= 10_000, `stopped after ${call!.durationMs} ms, before 10 s of silence`);
    assert.equal(requestsOf(s, 'actor').length, 1);
    assert.deepEqual(leftovers(marker), [], 'no claude (or anything it started) is left running');
  });

  it('ends the task NEEDS_HUMAN with the reason when the server drops the connection', TEST_TIMEOUT, async () => {
    const marker = '[run-drop]';
    const plan = { goal: `${marker} drop`, tasks: [planTask(marker, 'theta')] };
    const s = scenario(marker, { actor: () => ({ type: 'drop' }) });
    const r = repo();

    // A hang fails the call past the deadline.
    const result = await taskloom(runArgs(r, { plan }, 'test -f theta.txt'), marker, 120_000);
    assert.equal(result.code, 1, output(result));
    const t = trace(r);
    const task = t.tasks[0]!;
    assert.equal(task.state, 'NEEDS_HUMAN');
    const last = lastTransition(task);
    assert.equal(last.event, 'AGENT_FAILED', JSON.stringify(task.transitions));
    assert.match(last.reason, /^actor failed \(an agent error\): claude: .*connection/is);
    // Claude Code retries the stream (CLAUDE_CODE_MAX_RETRIES=2 from Taskloom), then tries once without streaming.
    const streams = requestsOf(s, 'actor').map((x) => x.request!.stream);
    const streamed = streams.filter(Boolean).length;
    assert.ok(streamed >= 2 && streamed <= 3 && streams.length - streamed <= 1, `requests (stream?): ${streams.join(', ')}`);
    assert.deepEqual(leftovers(marker), []);
  });

  it('measures what a three-attempt task sends with session resume, against fresh sessions', TEST_TIMEOUT, async (tc: TestContext) => {
    const marker = '[run-tokens]';
    const plan = { goal: `${marker} three attempts`, tasks: [planTask(marker, 'iota')] };
    // The gate prints the file, so each retry prompt differs (and says which attempt it answers).
    const gate = 'cat iota.txt && grep -q v3 iota.txt';
    const s = scenario(marker, {
      actor: (task, attempt) => ({ write: `${task}.txt`, content: `v${attempt}\n` }),
    });
    const r = repo();

    const result = await taskloom(runArgs(r, { plan }, gate), marker);
    assertWritesAccepted(s);
    assert.equal(result.code, 0, output(result));
    const t = trace(r);
    assert.equal(t.tasks[0]!.state, 'MERGED');
    assert.equal(t.tasks[0]!.attempts, 3);
    const calls = runnerCalls(events(r, t.runId), 'actor');
    assert.deepEqual(calls.map((c) => c.resumed ?? false), [false, true, true]);
    assert.equal(new Set(calls.map((c) => c.sessionId)).size, 1);
    const resumedRequests = requestsOf(s, 'actor');
    assert.equal(resumedRequests.length, 6);
    const prompts = turnStarts(s, 'actor').map((x) => promptOf(x.request!));
    prompts.forEach((p) => assert.match(p, /^You are working on one task/));
    assert.equal(new Set(prompts).size, 3);

    // The same three prompts, each in a fresh session (what Taskloom would do without --resume),
    // through the same runner class and the same scripted replies. The marker is swapped for
    // one of the same length, so the prompts keep their size.
    const freshMarker = '[new-tokens]';
    assert.equal(freshMarker.length, marker.length);
    const fresh = scenario(freshMarker, { actor: (task, attempt) => ({ write: `${task}.txt`, content: `v${attempt}\n` }) });
    const runner = new ClaudeRunner({ binaryPath: CLAUDE, env: testEnv(freshMarker), maxRetries: 1, killGraceMs: 500 });
    for (const [i, prompt] of prompts.entries()) {
      // A new checkout each time: every fresh call starts where attempt 1 started (the scripted model reads nothing).
      const call = await runner.run({
        launch: launchUnconfined,
        role: 'actor',
        prompt: prompt.replaceAll(marker, freshMarker),
        cwd: repo().dir,
        taskId: 'iota',
        attempt: i + 1,
        model: MODEL,
        access: 'workspace-write',
        idleTimeoutMs: 60_000,
        signal: AbortSignal.timeout(120_000),
      });
      assert.equal(call.status, 'ok', call.error);
    }
    const freshRequests = requestsOf(fresh, 'actor');
    assert.equal(freshRequests.length, 6);

    // The server's usage figures are scripted, so what it "saw" is measured on the request
    // bodies: bytes, and ~bytes/4 as a token estimate. `conversation` is the task's own part of
    // the messages: Taskloom's prompts and the turns, without the context blocks Claude Code
    // adds to every session (system reminders, the environment message).
    const measure = (list: RecordedRequest[]) =>
      list.reduce(
        (m, x) => {
          type Block = string | { type?: string; text?: string };
          const own = x.request!.messages
            .filter((msg) => msg.role !== 'system')
            .flatMap((msg): Block[] => (typeof msg.content === 'string' ? [msg.content] : (msg.content as Block[])))
            .filter((b) => typeof b === 'string' || !(b.type === 'text' && b.text!.startsWith('<system-reminder>')));
          return {
            body: m.body + Buffer.byteLength(JSON.stringify(x.request!.raw)),
            conversation: m.conversation + Buffer.byteLength(JSON.stringify(own)),
          };
        },
        { body: 0, conversation: 0 },
      );
    const byAttempt = (list: RecordedRequest[]) => [0, 1, 2].map((i) => measure(list.slice(2 * i, 2 * i + 2)));
    const resumedAll = measure(resumedRequests);
    const freshAll = measure(freshRequests);
    const est = (bytes: number) => `~${Math.round(bytes / 4)} tok`;
    const line = (label: string, list: RecordedRequest[], all: { body: number; conversation: number }) =>
      `${label} per attempt (2 requests each) body ${byAttempt(list).map((m) => m.body).join(' / ')} B, conversation ${byAttempt(list)
        .map((m) => m.conversation)
        .join(' / ')} B; total body ${all.body} B (${est(all.body)}), conversation ${all.conversation} B (${est(all.conversation)})`;
    tc.diagnostic(line('resumed:', resumedRequests, resumedAll));
    tc.diagnostic(line('fresh:  ', freshRequests, freshAll));
    tc.diagnostic(
      `resume carried ${resumedAll.body - freshAll.body} B more (${est(resumedAll.body - freshAll.body)}, ${(((resumedAll.body - freshAll.body) / freshAll.body) * 100).toFixed(1)}% of the fresh total); ` +
        `claude reported (scripted) actor usage ${JSON.stringify(served(resumedRequests))}`,
    );

    // What resuming costs in raw input: every earlier attempt rides along in the later requests.
    assert.equal(conversation(resumedRequests[4]!.request!).split('You are working on one task').length - 1, 3);
    assert.equal(conversation(freshRequests[4]!.request!).split('You are working on one task').length - 1, 1);
    assert.ok(resumedAll.conversation > freshAll.conversation);
    const [a1, a2, a3] = byAttempt(resumedRequests);
    assert.ok(a1!.conversation < a2!.conversation && a2!.conversation < a3!.conversation, 'the resumed conversation grows with each attempt');
    assert.deepEqual(leftovers(marker), []);
  });
});
