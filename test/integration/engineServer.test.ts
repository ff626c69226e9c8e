import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CancellationTokenSource, ResponseError } from 'vscode-jsonrpc/node';
import type { RunEvent } from '../../src/engine/domain/events';
import type { Plan } from '../../src/engine/domain/plan';
import type { ErrorKind } from '../../src/engine/domain/taskloomError';
import {
  ApplyIntegrationRequest,
  PreviewApplyRequest,
  ApprovePlanRequest,
  CancelRequest,
  CheckPlanRequest,
  DiffRequest,
  DiscardRunRequest,
  DoctorRequest,
  FileAtCommitRequest,
  GetRunRequest,
  ListRunsRequest,
  RejectPlanRequest,
  ResumeRequest,
  RevisePlanRequest,
  RunEventRequest,
  StartGoalRequest,
  TaskDecisionRequest,
  type UserFacingErrorData,
} from '../../src/protocol/engineProtocol';
import type { RunSettings } from '../../src/protocol/runSettings';
import { runCli, startCli, writeInputs } from '../helpers/cli';
import { EngineServerProcess } from '../helpers/engineServer';
import { scriptedSettings as settings } from '../helpers/scriptedSettings';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';
import { criticFindingsOf } from '../../src/engine/report/criticFindings';

/**
 * The bundled engine server (dist/engine-server.js) as a child process over node IPC, with
 * real git repositories and the scripted agent: what the VS Code extension talks to.
 */

const repos: TempRepo[] = [];
const servers: EngineServerProcess[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  repos.forEach((r) => r.cleanup());
});

function repo(files?: Record<string, string>): TempRepo {
  const r = makeTempRepo(files ? { files } : {});
  repos.push(r);
  return r;
}

async function startServer(options: { fileSizeKiB?: number } = {}): Promise<EngineServerProcess> {
  const server = await EngineServerProcess.start({}, options);
  servers.push(server);
  return server;
}

const task = (id: string, dependsOn: string[] = []) => ({ id, title: `Task ${id}`, description: `do ${id}`, acceptance: [], dependsOn });
const write = (files: Record<string, string>, delayMs = 0) => ({ write: files, delayMs });
const green = { verdict: { decision: 'green', summary: 'fine', findings: [] }, delayMs: 0 };

const planFile = (plan: object): string => writeInputs({ 'plan.json': plan })['plan.json']!;

/** The request's user-facing error (fails the test on success or on an internal error). */
async function userError(promise: Promise<unknown>): Promise<{ message: string; kind: ErrorKind; hint?: string; setting?: string }> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ResponseError, `a ResponseError, got ${String(error)}`);
    const data = error.data as UserFacingErrorData | undefined;
    assert.equal(typeof data?.kind, 'string', `a user-facing error, got ${error.code}: ${error.message}`);
    return { message: error.message, kind: data!.kind, ...(data!.hint ? { hint: data!.hint } : {}), ...(data!.setting ? { setting: data!.setting } : {}) };
  }
  assert.fail('the request should have failed');
}

/** The whole account the editor gets of a request's user-facing error. */
async function userErrorData(promise: Promise<unknown>): Promise<UserFacingErrorData & { message: string }> {
  const error = await promise.then(
    () => assert.fail('the request should have failed'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ResponseError && typeof (error.data as UserFacingErrorData | undefined)?.kind === 'string', `a user-facing error, got ${String(error)}`);
  return { ...(error.data as UserFacingErrorData), message: error.message };
}

function assertContiguous(events: RunEvent[]): void {
  assert.deepEqual(
    events.map((e) => e.seq),
    events.map((_, i) => i + 1),
    'every event arrives once, in seq order, from 1',
  );
}

const lockFile = (r: TempRepo) => join(r.dir, '.taskloom', 'lock');
const branchesOf = (r: TempRepo, runId: string) => r.git(['for-each-ref', '--format=%(refname:short)', `refs/heads/taskloom/${runId}`]);

/** Starts a plan-file run, approves it and waits for its end. */
async function runToEnd(server: EngineServerProcess, r: TempRepo, plan: object, scenario: object, over: Partial<RunSettings> = {}) {
  const { runId } = await server.request(StartGoalRequest.type, { folder: r.dir, planFile: planFile(plan), settings: settings(scenario, over) });
  await server.request(ApprovePlanRequest.type, { folder: r.dir, runId, by: 'autopilot' });
  const end = await server.waitForEnd(runId);
  return { runId, end };
}

describe('engine server (bundled, over IPC, real git, scripted agent)', () => {
  let server: EngineServerProcess;
  before(async () => {
    server = await startServer();
  });

  it("takes a plan file as the run's plan, waits for approval, then streams every event to completion and lets go of the lock", async () => {
    const r = repo();
    const plan = { goal: 'three files', tasks: [task('a'), task('b', ['a']), task('c')] };
    const nit = { file: 'a.txt', line: 1, severity: 'nit', category: 'style', message: 'Say more.' };
    const scenario = {
      tasks: {
        a: { actor: [write({ 'a.txt': 'a\n' }, 300)], critic: [{ verdict: { decision: 'green', summary: 'ok', findings: [nit] }, delayMs: 0 }] },
        b: { actor: [write({ 'b.txt': 'b\n' })], critic: [green] },
        c: { actor: [write({ 'c.txt': 'c\n' })], critic: [green] },
      },
    };
    const started = await server.request(StartGoalRequest.type, { folder: r.dir, planFile: planFile(plan), settings: settings(scenario) });
    assert.deepEqual(started.plan.tasks.map((t) => t.id), ['a', 'b', 'c']);
    assert.deepEqual(started.ignoredChanges, []);

    // Proposed, not started: the run waits for the human, without holding the lock.
    const waiting = await server.request(GetRunRequest.type, { folder: r.dir, runId: started.runId });
    assert.equal(waiting.status, 'planning');
    assert.equal(waiting.planApproved, false);
    assert.deepEqual(waiting.taskOrder, ['a', 'b', 'c']);
    assert.equal(existsSync(lockFile(r)), false, 'no lock while the plan waits');
    // A person's plan is the run's from the start, as the CLI's --plan: no planner's draft of it.
    assert.deepEqual(server.eventsOf(started.runId).map((e) => e.type), ['run_created']);
    // No integration branch yet: the run has changed nothing, which its diff says without an error.
    const unbuilt = await server.request(DiffRequest.type, { folder: r.dir, runId: started.runId });
    assert.deepEqual(unbuilt, { base: unbuilt.base, head: unbuilt.base, files: [], uncommitted: [] });

    await server.request(ApprovePlanRequest.type, { folder: r.dir, runId: started.runId, by: 'human' });
    const end = await server.waitForEnd(started.runId);
    assert.equal(end.type === 'run_finished' && end.status, 'completed');

    const events = server.eventsOf(started.runId);
    assertContiguous(events);
    const onDisk = readFileSync(join(r.dir, '.taskloom', 'runs', started.runId, 'events.jsonl'), 'utf8').trim().split('\n');
    assert.equal(events.length, onDisk.length, 'every durable event was sent');
    const state = await server.request(GetRunRequest.type, { folder: r.dir, runId: started.runId });
    assert.equal(state.lastSeq, events.at(-1)!.seq);
    assert.deepEqual(Object.values(state.tasks).map((t) => t.state), ['MERGED', 'MERGED', 'MERGED']);

    // The critic's nit on a file is in the state the editor folds its Problems panel from, not blocking.
    assert.deepEqual(
      criticFindingsOf(state).map((f) => [f.taskId, f.file, f.line, f.blocking]),
      [['a', 'a.txt', 1, false]],
    );
    assert.ok(server.activity.some((a) => a.runId === started.runId && a.taskId === 'a' && /^actor: /.test(a.line)), 'agent activity is forwarded');

    assert.equal(existsSync(lockFile(r)), false, 'the lock is released once the run ended');
    const listed = await server.request(ListRunsRequest.type, { folder: r.dir });
    assert.deepEqual(
      listed.runs.map((x) => [x.runId, x.status, x.merged, x.skipped, x.total, x.active, x.foreign]),
      [[started.runId, 'completed', 3, 0, 3, false, false]],
    );
    assert.equal(listed.drivenElsewhere, undefined);

    // The diff of a task and of the whole run, and the files behind them.
    const taskDiff = await server.request(DiffRequest.type, { folder: r.dir, runId: started.runId, taskId: 'b' });
    assert.deepEqual(taskDiff.files, [{ path: 'b.txt', status: 'A' }]);
    assert.equal(taskDiff.base, state.tasks.b!.baseCommit);
    // A review's diff is the range its verdict recorded (here the same as today's: b did not change after it).
    const review = events.find((e) => e.type === 'critic_verdict' && e.taskId === 'b')!;
    assert.ok(review.type === 'critic_verdict' && review.commit && review.base === state.tasks.b!.baseCommit);
    const reviewDiff = await server.request(DiffRequest.type, { folder: r.dir, runId: started.runId, taskId: 'b', reviewSeq: review.seq });
    assert.deepEqual(reviewDiff, { base: review.base, head: review.commit, files: [{ path: 'b.txt', status: 'A' }], uncommitted: [], review: { number: 1, source: 'recorded' } });
    const notAReview = events.find((e) => e.type === 'gate_result' && e.taskId === 'b')!;
    assert.match((await userError(server.request(DiffRequest.type, { folder: r.dir, runId: started.runId, taskId: 'b', reviewSeq: notAReview.seq }))).message, /is not a critic review of "b"/);
    const runDiff = await server.request(DiffRequest.type, { folder: r.dir, runId: started.runId });
    assert.deepEqual(runDiff.files.map((f) => f.path).sort(), ['a.txt', 'b.txt', 'c.txt']);
    assert.equal(runDiff.base, state.baseCommit);
    assert.deepEqual(runDiff.uncommitted, []);
    const at = (commit: string, path: string) => server.request(FileAtCommitRequest.type, { folder: r.dir, commit, path });
    assert.deepEqual(await at(runDiff.head, 'b.txt'), { content: 'b\n' });
    assert.deepEqual(await at(runDiff.base, 'b.txt'), { content: null });
    assert.match((await userError(at(runDiff.head, '../outside.txt'))).message, /Not a path inside the repository/);
    assert.match((await userError(at('--output=/tmp/x', 'b.txt'))).message, /Not a commit/);

    // One event by seq, for the ledger's details.
    const gate = events.find((e) => e.type === 'gate_result')!;
    assert.deepEqual(await server.request(RunEventRequest.type, { folder: r.dir, runId: started.runId, seq: gate.seq }), gate);
    assert.equal(await server.request(RunEventRequest.type, { folder: r.dir, runId: started.runId, seq: 10_000 }), null);

    // The CLI can work in the workspace afterwards.
    const inputs = writeInputs({ 'plan.json': { goal: 'cli', tasks: [task('d')] }, 'scenario.json': { tasks: { d: { actor: [write({ 'd.txt': 'd' })], critic: [green] } } } });
    const cli = runCli(['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', '--gate', 'true']);
    assert.equal(cli.code, 0, cli.stdout + cli.stderr);
  });

  it('plans a goal, answers with the plan, and applies a human edit of it as the next draft', async () => {
    const r = repo();
    const drafted = { goal: 'x', rationale: 'two steps', tasks: [task('one'), task('two', ['one'])] };
    const scenario = {
      defaults: { delayMs: 0 },
      planner: [{ output: drafted }],
      fallback: { actor: [{ write: { 'f.txt': 'f' } }], critic: [{ verdict: { decision: 'green', summary: 'ok', findings: [] } }] },
    };
    const started = await server.request(StartGoalRequest.type, { folder: r.dir, goal: 'add a file', settings: settings(scenario) });
    assert.deepEqual(started.plan.tasks.map((t) => t.id), ['one', 'two']);
    assert.equal(started.plan.goal, 'add a file');
    const types = server.eventsOf(started.runId).map((e) => e.type);
    assert.deepEqual(types.filter((t) => t.startsWith('plan_')), ['plan_proposed', 'plan_reviewed']);

    // The editor checks an edit as the human types it.
    const checked = await server.request(CheckPlanRequest.type, { text: JSON.stringify(started.plan), source: 'plan.json' });
    assert.deepEqual(checked, { problems: [], plan: started.plan });
    const broken = await server.request(CheckPlanRequest.type, { text: '{"goal": "x", "tasks": [', source: 'edited.json' });
    assert.match(broken.problems[0]!, /invalid JSON at line 1/);
    assert.deepEqual(broken.spans, [{ line: 1, column: 25, endLine: 1, endColumn: 26 }], 'the editor gets where the text breaks');
    assert.equal(broken.plan, undefined);

    // A cyclic edit is refused and changes nothing; a good one becomes draft 2.
    const cyclic: Plan = { ...started.plan, tasks: [{ ...started.plan.tasks[0]!, dependsOn: ['two'] }, started.plan.tasks[1]!] };
    assert.match((await userError(server.request(ApprovePlanRequest.type, { folder: r.dir, runId: started.runId, by: 'human', plan: cyclic }))).message, /one → two → one|cycle/i);
    const edited: Plan = { ...started.plan, tasks: [started.plan.tasks[0]!] };
    await server.request(ApprovePlanRequest.type, { folder: r.dir, runId: started.runId, by: 'human', plan: edited });
    const end = await server.waitForEnd(started.runId);
    assert.equal(end.type === 'run_finished' && end.status, 'completed');
    const events = server.eventsOf(started.runId);
    assertContiguous(events);
    const proposals = events.filter((e) => e.type === 'plan_proposed');
    assert.deepEqual(proposals.map((e) => e.type === 'plan_proposed' && [e.round, e.plan.tasks.length]), [[1, 2], [2, 1]]);
    const approvedAt = events.findIndex((e) => e.type === 'plan_approved');
    assert.ok(approvedAt > events.indexOf(proposals[1]!), 'the edit is proposed before it is approved');

    // A plan can be rejected instead: the run ends, nothing built.
    const second = await server.request(StartGoalRequest.type, { folder: r.dir, goal: 'another', settings: settings(scenario) });
    await server.request(RejectPlanRequest.type, { folder: r.dir, runId: second.runId, reason: 'not now' });
    const rejected = await server.request(GetRunRequest.type, { folder: r.dir, runId: second.runId });
    assert.equal(rejected.status, 'cancelled');
    assert.equal(rejected.finishedSummary, 'not now');
  });

  it('ends the run failed with the reason when planning fails, as a user-facing error', async () => {
    const r = repo();
    const scenario = { planner: [{ raw: 'no plan here', delayMs: 0 }] };
    const failure = await userError(server.request(StartGoalRequest.type, { folder: r.dir, goal: 'anything', settings: settings(scenario) }));
    assert.match(failure.message, /no valid plan/);
    assert.equal(failure.kind, 'agent_failed');
    const [run] = (await server.request(ListRunsRequest.type, { folder: r.dir })).runs;
    assert.equal(run!.status, 'failed');
    const state = await server.request(GetRunRequest.type, { folder: r.dir, runId: run!.runId });
    assert.match(state.finishedSummary!, /no valid plan/);
    assert.equal(existsSync(lockFile(r)), false);

    // Cancelling the request stops the planner: the run ends cancelled.
    const slow = { planner: [{ output: { goal: 'x', tasks: [task('a')] }, delayMs: 30_000 }] };
    const source = new CancellationTokenSource();
    const planning = server.request(StartGoalRequest.type, { folder: r.dir, goal: 'slowly', settings: settings(slow) }, source.token);
    for (let waited = 0; !server.activity.some((a) => a.line.startsWith('planner: ') && a.taskId === null); waited += 50) {
      assert.ok(waited < 30_000, 'the planner started');
      await sleep(50);
    }
    source.cancel();
    await assert.rejects(planning, (error: unknown) => error instanceof ResponseError && error.code === -32800);
    const runs = (await server.request(ListRunsRequest.type, { folder: r.dir })).runs;
    assert.deepEqual(runs.map((x) => [x.goal, x.status, x.active]), [['slowly', 'cancelled', false], ['anything', 'failed', false]]);
  });

  it('keeps a drafted plan whose task has no description for review: approval is refused until a person fills it in or drops it', async () => {
    const r = repo();
    const drafted = { goal: 'x', tasks: [task('one'), { ...task('two', ['one']), description: '' }, task('three', ['two'])] };
    const scenario = {
      defaults: { delayMs: 0 },
      planner: [{ output: drafted }],
      fallback: { actor: [{ write: { 'f.txt': 'f' } }], critic: [green] },
    };
    const started = await server.request(StartGoalRequest.type, { folder: r.dir, goal: 'three steps', settings: settings(scenario) });
    assert.deepEqual(started.plan.tasks.map((t) => [t.id, t.description]), [['one', 'do one'], ['two', ''], ['three', 'do three']], 'the other tasks are kept');
    const waiting = await server.request(GetRunRequest.type, { folder: r.dir, runId: started.runId });
    assert.equal(waiting.status, 'planning', 'the plan waits for review, not a failed planning');

    const refused = await userError(server.request(ApprovePlanRequest.type, { folder: r.dir, runId: started.runId, by: 'human' }));
    assert.equal(refused.kind, 'bad_input');
    assert.match(refused.message, /The plan cannot start yet: task "two" has no description/);
    assert.match(refused.hint!, /Fill in what is missing or drop the task/);
    assert.equal((await server.request(GetRunRequest.type, { folder: r.dir, runId: started.runId })).planApproved, false);

    const fix = (f: object) => server.request(RevisePlanRequest.type, { folder: r.dir, runId: started.runId, fix: f as never });
    assert.match((await userError(fix({ taskId: 'two', fill: { field: 'description', text: '   ' } }))).message, /cannot be empty/);
    assert.match((await userError(fix({ taskId: 'ghost', drop: true }))).message, /no task "ghost"/);
    const filled = await fix({ taskId: 'two', fill: { field: 'description', text: 'do two, carefully' } });
    assert.equal(filled.tasks[1]!.description, 'do two, carefully');
    await server.request(ApprovePlanRequest.type, { folder: r.dir, runId: started.runId, by: 'human' });
    const end = await server.waitForEnd(started.runId);
    assert.equal(end.type === 'run_finished' && end.status, 'completed');
    const rounds = server.eventsOf(started.runId).filter((e) => e.type === 'plan_proposed').map((e) => e.type === 'plan_proposed' && e.round);
    assert.deepEqual(rounds, [1, 2], 'the filled-in plan is the next draft');

    // Dropping the task instead: what depended on it loses that dependency, and the rest can start.
    const second = await server.request(StartGoalRequest.type, { folder: r.dir, goal: 'three steps again', settings: settings(scenario) });
    const dropped = await server.request(RevisePlanRequest.type, { folder: r.dir, runId: second.runId, fix: { taskId: 'two', drop: true } });
    assert.deepEqual(dropped.tasks.map((t) => [t.id, t.dependsOn]), [['one', []], ['three', []]]);
    await server.request(ApprovePlanRequest.type, { folder: r.dir, runId: second.runId, by: 'autopilot' });
    const secondEnd = await server.waitForEnd(second.runId);
    assert.equal(secondEnd.type === 'run_finished' && secondEnd.status, 'completed');
  });

  it('tells the editor which run a failed planning ended and keeps the rejected plan; a bad plan file comes with its problems and their places', async () => {
    const r = repo();
    const cyclic = { goal: 'x', tasks: [task('a', ['b']), task('b', ['a'])] };
    const failed = await userErrorData(server.request(StartGoalRequest.type, { folder: r.dir, goal: 'loop', settings: settings({ planner: [{ output: cyclic, delayMs: 0 }] }) }));
    assert.equal(failed.kind, 'agent_failed');
    assert.match(failed.message, /dependency cycle/);
    const [run] = (await server.request(ListRunsRequest.type, { folder: r.dir })).runs;
    assert.deepEqual(failed.planningFailed, { runId: run!.runId, rejectedPlan: true });
    assert.deepEqual([run!.status, run!.planApproved], ['failed', false]);
    const state = await server.request(GetRunRequest.type, { folder: r.dir, runId: run!.runId });
    assert.deepEqual(JSON.parse(state.rejectedPlan!), cyclic, 'the planner\'s plan, for the person to fix');

    const file = planFile({ goal: 'x', tasks: [task('a'), { ...task('b'), title: '' }, task('c', ['ghost'])] });
    const bad = await userErrorData(server.request(StartGoalRequest.type, { folder: r.dir, planFile: file, settings: settings({}) }));
    assert.equal(bad.planProblems?.file, file);
    assert.deepEqual(bad.planProblems?.problems.length, 2);
    assert.ok(bad.planProblems!.spans.every((span) => span && span.line > 1), `each problem has its place: ${JSON.stringify(bad.planProblems)}`);
    // The editor checks a Markdown plan as a Markdown plan while it is fixed.
    const markdown = await server.request(CheckPlanRequest.type, { text: '# Goal: x\n\n- [ ] a: Do a\n  do it\n  - depends: ghost\n', source: '/tmp/plan.md' });
    assert.match(markdown.problems.join(' '), /unknown task "ghost"/);
  });

  it('takes a human decision on a task that needs one (retry, accept, skip) and drives the run on', async () => {
    const r = repo();
    const plan = { goal: 'human', tasks: [task('flaky'), task('rough'), task('broken'), task('after', ['broken'])] };
    const scenario = {
      tasks: {
        flaky: { actor: [{ fail: 'first try fails', delayMs: 0 }, write({ 'flaky.txt': 'ok\n' })], critic: [green] },
        rough: { actor: [{ write: { 'rough.txt': 'good enough\n' }, crash: true, delayMs: 0 }] },
        broken: { actor: [{ fail: 'never works', delayMs: 0 }] },
      },
    };
    const { runId, end } = await runToEnd(server, r, plan, scenario);
    assert.equal(end.type === 'run_finished' && end.status, 'needs_human');
    const stateOf = async () => Object.fromEntries(Object.values((await server.request(GetRunRequest.type, { folder: r.dir, runId })).tasks).map((t) => [t.id, t.state]));
    assert.deepEqual(await stateOf(), { flaky: 'NEEDS_HUMAN', rough: 'NEEDS_HUMAN', broken: 'NEEDS_HUMAN', after: 'SKIPPED' });
    // The worktrees kept for the person take disk; a first listing for the editor's first paint does not wait to measure it.
    assert.ok((await server.request(ListRunsRequest.type, { folder: r.dir })).runs[0]!.diskBytes! > 0);
    assert.equal((await server.request(ListRunsRequest.type, { folder: r.dir, skipDiskUsage: true })).runs[0]!.diskBytes, undefined);

    const decide = async (taskId: string, action: 'retry' | 'accept' | 'skip', note?: string) => {
      const before = server.lastSeq(runId);
      await server.request(TaskDecisionRequest.type, { folder: r.dir, runId, taskId, action, ...(note ? { note } : {}) });
      return server.waitForEnd(runId, before);
    };
    const refused = await userError(server.request(TaskDecisionRequest.type, { folder: r.dir, runId, taskId: 'after', action: 'accept' }));
    assert.match(refused.message, /Task "after" \(skipped\) cannot be accepted now/);
    assert.match((await userError(server.request(TaskDecisionRequest.type, { folder: r.dir, runId, taskId: 'ghost', action: 'retry' }))).message, /has no task "ghost"/);

    const retried = await decide('flaky', 'retry', 'the file goes at the root');
    assert.equal(retried.type === 'run_finished' && retried.status, 'needs_human', 'rough and broken still need a human');
    assert.equal((await stateOf()).flaky, 'MERGED');
    assert.match((await userError(server.request(ApplyIntegrationRequest.type, { folder: r.dir, runId, history: 'merge' }))).message, /not completed/);
    await decide('rough', 'accept');
    assert.equal((await stateOf()).rough, 'MERGED');
    await decide('broken', 'skip');
    assert.deepEqual(await stateOf(), { flaky: 'MERGED', rough: 'MERGED', broken: 'SKIPPED', after: 'SKIPPED' });
    const state = await server.request(GetRunRequest.type, { folder: r.dir, runId });
    assert.deepEqual(state.integration.merged.sort(), ['flaky', 'rough']);
    assert.equal(r.git(['show', `${state.integration.branch}:rough.txt`]), 'good enough');
    assertContiguous(server.eventsOf(runId));

    // Discarding removes worktrees, branches and the record; approved work that exists nowhere else only when forced.
    assert.notEqual(branchesOf(r, runId), '');
    const unpublished = await userError(server.request(DiscardRunRequest.type, { folder: r.dir, runId }));
    assert.match(unpublished.message, /holds work that was never applied or pushed: flaky, rough/);
    await server.request(DiscardRunRequest.type, { folder: r.dir, runId, force: true });
    assert.equal(branchesOf(r, runId), '', 'no taskloom/<run>/ branch is left');
    assert.doesNotMatch(r.git(['worktree', 'list', '--porcelain']), new RegExp(runId), 'no worktree of the run is left');
    assert.equal(existsSync(join(r.dir, '.taskloom', 'runs', runId)), false);
    assert.deepEqual((await server.request(ListRunsRequest.type, { folder: r.dir })).runs, []);
    assert.match((await userError(server.request(GetRunRequest.type, { folder: r.dir, runId }))).message, /No run/);
  });

  it('answers a decision on a full disk as a storage error with what to do, not as a bug', async () => {
    const r = repo();
    const plan = { goal: 'full disk', tasks: [task('flaky')] };
    const scenario = { tasks: { flaky: { actor: [{ fail: 'first try fails', delayMs: 0 }, write({ 'flaky.txt': 'ok\n' })], critic: [green] } } };
    const { runId } = await runToEnd(server, r, plan, scenario);
    const full = await startServer({ fileSizeKiB: 1 });
    const refused = await userError(full.request(TaskDecisionRequest.type, { folder: r.dir, runId, taskId: 'flaky', action: 'retry' }));
    assert.equal(refused.kind, 'storage');
    assert.match(refused.message, /Could not append an event to .*events\.jsonl/);
    assert.match(refused.hint!, /Free some space/);
    assert.ok(!full.log.some((l) => /internal error/.test(l.message)), full.log.map((l) => l.message).join('\n'));
    await full.stop();
  });

  it('takes a decision while the run is still being driven, and the same run picks it up', async () => {
    const r = repo();
    const plan = { goal: 'meanwhile', tasks: [task('quick'), task('slow')] };
    const scenario = {
      tasks: {
        quick: { actor: [{ fail: 'not yet', delayMs: 0 }, write({ 'q.txt': 'q\n' })], critic: [green] },
        slow: { actor: [write({ 's.txt': 's\n' }, 4_000)], critic: [green] },
      },
    };
    const { runId } = await server.request(StartGoalRequest.type, { folder: r.dir, planFile: planFile(plan), settings: settings(scenario) });
    await server.request(ApprovePlanRequest.type, { folder: r.dir, runId, by: 'autopilot' });
    await server.waitForEvents(runId, (events) => events.some((e) => e.type === 'task_transition' && e.taskId === 'quick' && e.to === 'NEEDS_HUMAN'));
    await server.request(TaskDecisionRequest.type, { folder: r.dir, runId, taskId: 'quick', action: 'retry' });
    const end = await server.waitForEnd(runId);
    assert.equal(end.type === 'run_finished' && end.status, 'completed');
    const events = server.eventsOf(runId);
    assert.equal(events.filter((e) => e.type === 'run_finished').length, 1, 'one drive, no second pass needed');
    assert.ok(events.some((e) => e.type === 'human_decision' && e.taskId === 'quick'));
    assertContiguous(events);
  });

  it('cancels a run mid-way (ending it cancelled) and resumes it to completion', async () => {
    const r = repo();
    const plan = { goal: 'slow', tasks: [task('a'), task('b'), task('c', ['a', 'b'])] };
    const scenario = {
      tasks: {
        a: { actor: [write({ 'a.txt': 'a\n' }, 2_000)], critic: [green] },
        b: { actor: [write({ 'b.txt': 'b\n' }, 2_000)], critic: [green] },
        c: { actor: [write({ 'c.txt': 'c\n' })], critic: [green] },
      },
    };
    const { runId } = await server.request(StartGoalRequest.type, { folder: r.dir, planFile: planFile(plan), settings: settings(scenario) });
    await server.request(ApprovePlanRequest.type, { folder: r.dir, runId, by: 'autopilot' });
    await server.waitForEvents(runId, (events) => events.some((e) => e.type === 'task_transition' && e.to === 'BUILDING'));
    assert.equal((await server.request(ListRunsRequest.type, { folder: r.dir })).runs[0]!.active, true);
    assert.match((await userError(server.request(DiscardRunRequest.type, { folder: r.dir, runId }))).message, /is running/);

    await server.request(CancelRequest.type, { folder: r.dir, runId });
    const cancelled = await server.request(GetRunRequest.type, { folder: r.dir, runId });
    assert.equal(cancelled.status, 'cancelled', 'the cancel answers once the run has stopped');
    assert.equal(cancelled.tasks.c!.state, 'CANCELLED', 'what waited on the cancelled work is cancelled with the run, not skipped as if a dependency had failed');
    assert.equal(existsSync(lockFile(r)), false);

    const resumed = await server.request(ResumeRequest.type, { folder: r.dir, runId });
    assert.equal(resumed.runId, runId);
    const end = await server.waitForEnd(runId, cancelled.lastSeq);
    assert.equal(end.type === 'run_finished' && end.status, 'completed');
    const state = await server.request(GetRunRequest.type, { folder: r.dir, runId });
    assert.deepEqual(Object.values(state.tasks).map((t) => t.state), ['MERGED', 'MERGED', 'MERGED']);
    assertContiguous(server.eventsOf(runId));
    assert.match((await userError(server.request(ResumeRequest.type, { folder: r.dir, runId }))).message, /already completed/);

    // Apply: refused on a dirty tree, then merged into the user's branch.
    writeFileSync(join(r.dir, 'README.md'), 'my edit\n');
    const dirty = await userError(server.request(ApplyIntegrationRequest.type, { folder: r.dir, runId, history: 'merge' }));
    assert.match(dirty.message, /uncommitted changes \(README\.md\)/);
    assert.ok(dirty.hint);
    r.git(['checkout', '--', 'README.md']);
    const before = r.git(['rev-parse', 'HEAD']);
    const preview = await server.request(PreviewApplyRequest.type, { folder: r.dir, runId, history: 'merge' });
    assert.deepEqual(preview, { branch: 'main', commits: 4, alreadyApplied: false, leftOut: [] }, 'a commit per task and the merge commit');
    assert.equal(r.git(['rev-parse', 'HEAD']), before, 'a preview changes nothing');
    const applied = await server.request(ApplyIntegrationRequest.type, { folder: r.dir, runId, history: 'merge' });
    assert.equal(applied.branch, 'main');
    assert.equal(applied.commit, r.git(['rev-parse', 'HEAD']));
    assert.equal(applied.commits, Number(r.git(['rev-list', '--count', `${before}..HEAD`])), 'the commits made, counted on the branch');
    assert.equal(applied.commits, preview.commits);
    assert.equal(r.git(['rev-parse', `${applied.commit}^{tree}`]), r.git(['rev-parse', `${state.integration.branch!}^{tree}`]), 'the tree the integration gate passed');
    assert.deepEqual(applied.files.sort(), ['a.txt', 'b.txt', 'c.txt']);
    assert.equal(readFileSync(join(r.dir, 'c.txt'), 'utf8'), 'c\n');
    assert.equal(r.git(['status', '--porcelain']), '');
  });

  it('records a step a shutdown interrupts as interrupted, not cancelled, and what depends on it stays pending; the next window resumes it', async () => {
    const r = repo();
    const plan = { goal: 'reload mid-step', tasks: [task('slow'), task('after', ['slow'])] };
    const scenario = {
      tasks: {
        slow: { actor: [write({ 'slow.txt': 'slow\n' }, 60_000)], critic: [green] },
        after: { actor: [write({ 'after.txt': 'after\n' })], critic: [green] },
      },
    };
    const runSettings = settings(scenario);
    const first = await startServer();
    const { runId } = await first.request(StartGoalRequest.type, { folder: r.dir, planFile: planFile(plan), settings: runSettings });
    await first.request(ApprovePlanRequest.type, { folder: r.dir, runId, by: 'autopilot' });
    await first.waitForEvents(runId, (events) => events.some((e) => e.type === 'task_transition' && e.taskId === 'slow' && e.to === 'BUILDING'));
    // The window reloads: the language client shuts the server down politely.
    await first.stop();

    const reopened = await startServer();
    const stopped = await reopened.request(GetRunRequest.type, { folder: r.dir, runId });
    assert.equal(stopped.status, 'running', 'unfinished: no end was recorded');
    assert.equal(stopped.tasks.slow!.state, 'BUILDING', 'the step stays where it was, read as interrupted where nothing drives it');
    assert.equal(stopped.tasks.after!.state, 'PENDING', 'the dependent waits; nothing failed');
    const transitions = stopped.tasks.slow!.transitions.map((t) => t.to);
    assert.ok(!transitions.includes('CANCELLED'), `not cancelled: ${transitions.join(' → ')}`);
    assert.equal((await reopened.request(ListRunsRequest.type, { folder: r.dir })).runs[0]!.active, false);

    // The step starts over on resume, this time quickly.
    writeFileSync(runSettings.scriptedScenario!, JSON.stringify({ tasks: { ...scenario.tasks, slow: { actor: [write({ 'slow.txt': 'slow\n' })], critic: [green] } } }));
    await reopened.request(ResumeRequest.type, { folder: r.dir, runId });
    const end = await reopened.waitForEnd(runId, stopped.lastSeq);
    assert.equal(end.type === 'run_finished' && end.status, 'completed');
    const done = await reopened.request(GetRunRequest.type, { folder: r.dir, runId });
    assert.deepEqual(Object.fromEntries(Object.values(done.tasks).map((t) => [t.id, t.state])), { slow: 'MERGED', after: 'MERGED' });
    assert.ok(!done.tasks.after!.transitions.some((t) => t.to === 'SKIPPED'), 'never skipped and brought back');
  });

  it('refuses bad requests with user-facing errors that say what to fix', async () => {
    const r = repo();
    assert.match((await userError(server.request(GetRunRequest.type, { folder: r.dir, runId: 'no-such-run' }))).message, /No run "no-such-run"/);
    assert.match((await userError(server.request(CancelRequest.type, { folder: r.dir, runId: 'no-such-run' }))).message, /No run "no-such-run"/);
    assert.match((await userError(server.request(ResumeRequest.type, { folder: r.dir }))).message, /no unfinished run/);
    const badRunId = await userError(server.request(GetRunRequest.type, { folder: r.dir, runId: '../../etc' }));
    assert.match(badRunId.message, /runId: not a valid run id/);
    assert.equal(badRunId.kind, 'bad_input');
    // Whatever a client sends is checked against the protocol before any handler runs, each field named.
    const garbage = await userError(server.request(TaskDecisionRequest.type, { folder: r.dir, runId: 'r1', taskId: 7, action: 'burn' } as never));
    assert.match(garbage.message, /taskloom\/taskDecision: the request's parameters are not valid \(taskId: .*; action: .*\)/);
    assert.equal(garbage.kind, 'bad_input');
    const badParallel = await userError(
      server.request(StartGoalRequest.type, { folder: r.dir, goal: 'x', settings: settings({}, { maxParallel: 0 }) }),
    );
    assert.match(badParallel.message, /taskloom\.maxParallel must be a whole number ≥ 1, got 0/);
    const missingAgent = await userError(
      server.request(StartGoalRequest.type, { folder: r.dir, goal: 'x', settings: { ...settings({}), agent: 'claude', claudePath: '/nowhere/claude' } }),
    );
    assert.match(missingAgent.message, /\/nowhere\/claude is not an executable file/);
    assert.match(missingAgent.hint!, /taskloom\.claude\.path/);
    assert.equal(missingAgent.kind, 'needs_environment', 'an agent to install or point to: setup, not a mistyped value');
    assert.equal(missingAgent.setting, 'taskloom.claude.path', 'the editor can open the setting');
    const badPlan = await userError(
      server.request(StartGoalRequest.type, { folder: r.dir, planFile: planFile({ goal: 'x', tasks: [task('a', ['ghost'])] }), settings: settings({}) }),
    );
    assert.match(badPlan.message, /unknown task "ghost"/);
    const notARepo = await userError(server.request(ListRunsRequest.type, { folder: '/' }));
    assert.match(notARepo.message, /not inside a git repository/);
    assert.equal(notARepo.kind, 'needs_environment');
    assert.deepEqual((await server.request(ListRunsRequest.type, { folder: r.dir })).runs, [], 'no run was created');

    const { checks, verdict } = await server.request(DoctorRequest.type, { folder: r.dir, settings: settings({}) });
    assert.match(verdict, /^Ready to run: scripted agent as planner, actor, critic; /);
    const started = server.log.find((l) => /engine server started/.test(l.message));
    assert.equal(started?.type, 3, 'the start-up line is info in the editor\'s log, not an error');
    assert.equal(server.stderr, '', 'nothing goes to stderr, which the editor shows as errors');
    assert.ok(checks.some((c) => c.label === 'repository' && c.status === 'ok' && c.text.startsWith(r.dir)));
    assert.ok(checks.some((c) => c.label === 'scripted'));
    // The editor's doctor reads the scenario with the run's parser and dry-runs the gate, as the CLI's does.
    const blocked = await server.request(DoctorRequest.type, { folder: r.dir, settings: settings({ tasks: { a: { actor: [{ wrte: {} }] } } }, { gateCommands: ['taskloom-no-such-tool'] }) });
    assert.match(blocked.verdict, /^2 problems block a run: scripted: .*Unrecognized key: "wrte".*; gate: `taskloom-no-such-tool` cannot start: `taskloom-no-such-tool` is not on the PATH the gate sees/s);
  });

  it('reports a workspace the CLI is driving, refuses to change it meanwhile, and sends its events read-only', async () => {
    const r = repo();
    const inputs = writeInputs({
      'plan.json': { goal: 'cli drives', tasks: [task('a')] },
      'scenario.json': { tasks: { a: { actor: [write({ 'a.txt': 'a' }, 3_000)], critic: [green] } } },
    });
    const cli = startCli(['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', '--gate', 'true']);
    for (let waited = 0; !existsSync(join(r.dir, '.taskloom', 'runs')) || !existsSync(lockFile(r)); waited += 50) {
      assert.ok(waited < 30_000, 'the CLI took the lock');
      await sleep(50);
    }
    const listed = await server.request(ListRunsRequest.type, { folder: r.dir });
    assert.match(listed.drivenElsewhere ?? '', /"taskloom run" \(pid \d+/);
    const locked = await userError(server.request(StartGoalRequest.type, { folder: r.dir, goal: 'x', settings: settings({}) }));
    assert.match(locked.message, /Another Taskloom process .* is driving this workspace/);
    assert.equal(locked.kind, 'busy');
    assert.match(locked.hint!, /Wait for it to finish/);
    const result = await cli.done;
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const [runId] = readdirSync(join(r.dir, '.taskloom', 'runs'));
    // The editor takes over at once: its own run's events arrive once each, not again from the follower.
    const own = await server.request(StartGoalRequest.type, {
      folder: r.dir,
      planFile: planFile({ goal: 'editor drives', tasks: [task('b')] }),
      settings: settings({ tasks: { b: { actor: [write({ 'b.txt': 'b' })], critic: [green] } } }),
    });
    await server.request(ApprovePlanRequest.type, { folder: r.dir, runId: own.runId, by: 'autopilot' });
    await server.waitForEnd(own.runId);
    assertContiguous(server.eventsOf(own.runId));
    // What the CLI wrote after the listing reached the editor as events, to the last one.
    const followed = await server.waitForEvents(runId!, (events) => events.some((e) => e.type === 'run_finished'));
    const seqs = followed.map((e) => e.seq);
    assert.deepEqual(seqs, seqs.map((_, i) => seqs[0]! + i), 'each event once, in order');
    const onDisk = readFileSync(join(r.dir, '.taskloom', 'runs', runId!, 'events.jsonl'), 'utf8').trim().split('\n');
    assert.equal(followed.at(-1)!.seq, onDisk.length);
    assert.ok(followed.some((e) => e.type === 'task_transition' && e.to === 'GREEN'), 'the task went green before the eyes of the editor');
    const afterwards = await server.request(ListRunsRequest.type, { folder: r.dir });
    assert.equal(afterwards.drivenElsewhere, undefined);
    assert.equal(afterwards.runs.find((x) => x.runId === runId)!.status, 'completed', 'a read after the CLI sees what it wrote');
  });

  it('interrupts its runs (resumable, not cancelled) and lets go of the lock when the editor goes away without a goodbye', async () => {
    const r = repo();
    const orphan = await startServer();
    const scenario = { tasks: { a: { actor: [write({ 'a.txt': 'a\n' }, 2_500)], critic: [green] } } };
    const { runId } = await orphan.request(StartGoalRequest.type, { folder: r.dir, planFile: planFile({ goal: 'orphaned', tasks: [task('a')] }), settings: settings(scenario) });
    await orphan.request(ApprovePlanRequest.type, { folder: r.dir, runId, by: 'autopilot' });
    await orphan.waitForEvents(runId, (events) => events.some((e) => e.type === 'task_transition' && e.to === 'BUILDING'));
    assert.ok(existsSync(lockFile(r)));
    const exited = once(orphan.child, 'exit');
    orphan.child.disconnect();
    await exited;
    assert.equal(existsSync(lockFile(r)), false, 'the lock is released');
    const log = () =>
      readFileSync(join(r.dir, '.taskloom', 'runs', runId, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as RunEvent);
    // Interrupted, not cancelled: no run_finished, so the run stays unfinished and is offered for resume.
    assert.equal(log().some((e) => e.type === 'run_finished'), false, 'the run was not ended');
    const last = log().at(-1)!;
    assert.ok(last.type === 'warning' && /interrupted/.test(last.message), `the log says the run was interrupted (${JSON.stringify(log().slice(-4))})`);
    const runs = runCli(['runs', '--cwd', r.dir]);
    assert.match(runs.stdout, /stopped/, 'no process drives it: stopped, not running');
    const resumed = runCli(['resume', runId, '--cwd', r.dir]);
    assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
    assert.match(resumed.stdout, /completed — 1\/1 merged into \S+, integration gate passed/);
  });

  it('resumes to completion in a new server after the old one was killed mid-run', async () => {
    const r = repo();
    const doomed = await startServer();
    const plan = { goal: 'crash', tasks: [task('a'), task('b'), task('c', ['a'])] };
    const scenario = {
      tasks: {
        a: { actor: [write({ 'a.txt': 'a\n' }, 600)], critic: [green] },
        b: { actor: [write({ 'b.txt': 'b\n' }, 3_000)], critic: [green] },
        c: { actor: [write({ 'c.txt': 'c\n' }, 600)], critic: [green] },
      },
    };
    const { runId } = await doomed.request(StartGoalRequest.type, { folder: r.dir, planFile: planFile(plan), settings: settings(scenario) });
    await doomed.request(ApprovePlanRequest.type, { folder: r.dir, runId, by: 'autopilot' });
    await doomed.waitForEvents(runId, (events) => events.some((e) => e.type === 'work_committed'));
    await doomed.kill();
    assert.ok(existsSync(lockFile(r)), 'a killed server leaves its lock behind');

    const revived = await startServer();
    const before = (await revived.request(GetRunRequest.type, { folder: r.dir, runId })).lastSeq;
    await revived.request(ResumeRequest.type, { folder: r.dir, runId });
    const end = await revived.waitForEnd(runId, before);
    assert.equal(end.type === 'run_finished' && end.status, 'completed');
    const state = await revived.request(GetRunRequest.type, { folder: r.dir, runId });
    assert.deepEqual(Object.values(state.tasks).map((t) => t.state), ['MERGED', 'MERGED', 'MERGED']);
    assert.deepEqual(state.integration.merged.sort(), ['a', 'b', 'c']);
    const events = revived.eventsOf(runId);
    assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => before + 1 + i), 'the new server sends what came after');
    assert.ok(revived.log.some((l) => /stale lock/.test(l.message)), 'the stale lock is logged');
    await revived.stop();
    assert.equal(existsSync(lockFile(r)), false);
  });
});
