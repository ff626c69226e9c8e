import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ResponseError } from 'vscode-jsonrpc/node';
import { EXIT } from '../../../src/engine/domain/taskloomError';
import { ResumeRequest, StartGoalRequest, TaskDecisionRequest, type UserFacingErrorData } from '../../../src/protocol/engineProtocol';
import { runCli, writeInputs } from '../../helpers/cli';
import { EngineServerProcess } from '../../helpers/engineServer';
import { green, runScripted, task, trace, write } from '../../helpers/scriptedRun';
import { scriptedSettings } from '../../helpers/scriptedSettings';
import { makeTempRepo, type TempRepo } from '../../helpers/tempRepo';

// The CLI and the engine server call the same use cases (src/engine/usecases): for the same case
// they give the same answer, each in its own words around it (stderr and an exit code, a ResponseError).

const repos: TempRepo[] = [];
let server: EngineServerProcess;
before(async () => {
  server = await EngineServerProcess.start();
});
after(async () => {
  await server.stop();
  repos.forEach((r) => r.cleanup());
});

function repo(): TempRepo {
  const r = makeTempRepo();
  repos.push(r);
  return r;
}

/** The server's refusal: its message and the data the editor gets. */
async function refusal(request: Promise<unknown>): Promise<UserFacingErrorData & { message: string }> {
  const error = await request.then(
    () => assert.fail('the request should have been refused'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ResponseError, String(error));
  return { ...(error.data as UserFacingErrorData), message: error.message };
}

const plan = { goal: 'one task', tasks: [task('a')] };
const scenario = { tasks: { a: { actor: [write({ 'a.txt': 'a\n' })], critic: [green] } } };

describe('the front doors give the same answer', () => {
  it('resume of a run whose plan waits for approval: it cannot be resumed, and its plan is rejected', async () => {
    const r = repo();
    const inputs = writeInputs({ 'plan.json': plan, 'scenario.json': scenario });
    // Without a terminal the CLI cannot ask for approval: the plan is left waiting.
    const unapproved = runCli(['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--gate', 'true']);
    assert.equal(unapproved.code, EXIT.badInput, unapproved.stderr);
    const fromCli = trace(r.dir).runId;
    const { runId: fromEditor } = await server.request(StartGoalRequest.type, { folder: r.dir, planFile: inputs['plan.json']!, settings: scriptedSettings(scenario) });
    const why = 'it stopped before its plan was approved, so nothing was built';

    const cli = runCli(['resume', fromEditor, '--cwd', r.dir]);
    assert.equal(cli.code, EXIT.needsHuman, cli.stdout + cli.stderr);
    assert.match(cli.stdout, new RegExp(`^Run ${fromEditor} cannot be resumed: ${why}\\.$`, 'm'));
    const editor = await refusal(server.request(ResumeRequest.type, { folder: r.dir, runId: fromCli }));
    assert.equal(editor.message, `Run ${fromCli} cannot be resumed: ${why}`);
    assert.equal(editor.code, 'start_again');

    for (const runId of [fromCli, fromEditor]) assert.equal(trace(r.dir, runId).status, 'cancelled', `${runId}: the waiting plan was rejected`);
  });

  it('a decision on a task the run does not have', async () => {
    const r = repo();
    assert.equal(runScripted(r.dir, plan, { tasks: { a: { actor: [{ fail: 'no', delayMs: 0 }] } } }, '--gate', 'true', '--max-attempts', '1').code, EXIT.needsHuman);
    const { runId } = trace(r.dir);
    const said = `Run ${runId} has no task "ghost". Its tasks: a.`;

    const cli = runCli(['retry', 'ghost', '--run', runId, '--cwd', r.dir]);
    assert.equal(cli.code, EXIT.badInput);
    assert.equal(cli.stderr, `taskloom: ${said}\n`);
    const editor = await refusal(server.request(TaskDecisionRequest.type, { folder: r.dir, runId, taskId: 'ghost', action: 'retry' }));
    assert.equal(`${editor.message}. ${editor.hint}`, said);
    assert.deepEqual([editor.kind, editor.code], ['bad_input', 'unknown_task']);
  });
});
