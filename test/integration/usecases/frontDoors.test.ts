import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ResponseError } from 'vscode-jsonrpc/node';
import { EXIT } from '../../../src/engine/domain/taskloomError';
import { CancelRequest, GetRunRequest, ResumeRequest, StartGoalRequest, TaskDecisionRequest, type UserFacingErrorData } from '../../../src/protocol/engineProtocol';
import { runCli, writeInputs } from '../../helpers/cli';
import { EngineServerProcess } from '../../helpers/engineServer';
import { green, runScripted, task, trace, write } from '../../helpers/scriptedRun';
import { scriptedSettings } from '../../helpers/scriptedSettings';
import { makeTempRepo, type TempRepo } from '../../helpers/tempRepo';
import { pausedOnBase } from '../../helpers/gateEvents';
import { openDoor, scriptedRun } from '../../helpers/useCaseDoor';

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

  it('a run paused because its base fails a command no runner explains: a plain resume is refused with the three ways on, and either choice resumes it', async () => {
    const r = repo();
    // Runs paused there, as the drive leaves them (written in-process, then the workspace let go).
    const door = await openDoor(r.dir);
    const [forCli, forEditor, requiredByCli] = [1, 2, 3].map(() => {
      const session = scriptedRun(door, plan, scenario);
      for (const body of pausedOnBase(session.state.baseCommit)) session.emit(body);
      return session.runId;
    }) as [string, string, string];
    door.close();

    const cli = runCli(['resume', forCli, '--cwd', r.dir]);
    assert.equal(cli.code, EXIT.badInput, cli.stdout + cli.stderr);
    assert.match(cli.stderr, new RegExp(`^taskloom: Run ${forCli} waits for your choice\\. \`npm run lint\` fails on the run's base`));
    assert.match(cli.stderr, new RegExp(`\n  taskloom resume --advisory ${forCli}\n  taskloom resume --required ${forCli}\n  taskloom cancel ${forCli}\n$`));
    const editor = await refusal(server.request(ResumeRequest.type, { folder: r.dir, runId: forEditor }));
    assert.equal(editor.message, `Run ${forEditor} waits for your choice`);
    assert.equal(editor.code, 'baseline_choice_needed');
    assert.deepEqual(editor.next, [
      { kind: 'treatAsAdvisory', runId: forEditor, commands: ['npm run lint'] },
      { kind: 'keepAsRequired', runId: forEditor, commands: ['npm run lint'] },
      { kind: 'cancelRun', runId: forEditor },
    ]);
    const both = runCli(['resume', '--advisory', '--required', forCli, '--cwd', r.dir]);
    assert.equal(both.code, EXIT.badInput);
    assert.match(both.stderr, /--advisory and --required are two answers to one choice: give one/);

    const advisoryCli = runCli(['resume', '--advisory', forCli, '--cwd', r.dir]);
    assert.equal(advisoryCli.code, EXIT.ok, advisoryCli.stdout + advisoryCli.stderr);
    assert.match(advisoryCli.stdout, /^ {2}`npm run lint` fails on main too: advisory for this run \(your choice\)$/m, 'its summary says what the choice was');
    const seq = (await server.request(GetRunRequest.type, { folder: r.dir, runId: forEditor })).lastSeq;
    const requiredCli = runCli(['resume', '--required', requiredByCli, '--cwd', r.dir]);
    assert.equal(requiredCli.code, EXIT.ok, requiredCli.stdout + requiredCli.stderr);
    assert.match(requiredCli.stdout, /^ {2}`npm run lint` fails on main: kept as required, a check of work still to be done that the tasks must make pass$/m);
    await server.request(ResumeRequest.type, { folder: r.dir, runId: forEditor, baselineChoice: 'required' });
    assert.equal((await server.waitForEnd(forEditor, seq)).type, 'run_finished');
    const chosen = { [forCli]: 'advisory', [requiredByCli]: 'required', [forEditor]: 'required' };
    for (const [runId, choice] of Object.entries(chosen)) {
      const { status, decisions } = await server.request(GetRunRequest.type, { folder: r.dir, runId });
      assert.equal(status, 'completed', runId);
      assert.deepEqual(decisions.filter((d) => d.fact.type === 'baseline_choice').map((d) => d.fact.type === 'baseline_choice' && d.fact.choice), [choice], runId);
    }
  });

  it('the other answer: cancel ends a run paused for that choice, by `taskloom cancel` or the editor’s Cancel', async () => {
    const r = repo();
    const door = await openDoor(r.dir);
    const [forCli, forEditor] = [1, 2].map(() => {
      const session = scriptedRun(door, plan, scenario);
      for (const body of pausedOnBase(session.state.baseCommit)) session.emit(body);
      return session.runId;
    }) as [string, string];
    door.close();
    const cli = runCli(['cancel', forCli, '--cwd', r.dir]);
    assert.equal(cli.code, EXIT.ok, cli.stdout + cli.stderr);
    assert.match(cli.stdout, new RegExp(`Run ${forCli} {2}cancelled — cancelled by the user: \`npm run lint\` fails on the base`));
    await server.request(CancelRequest.type, { folder: r.dir, runId: forEditor });
    for (const runId of [forCli, forEditor]) assert.equal(trace(r.dir, runId).status, 'cancelled', runId);
    const again = runCli(['cancel', forCli, '--cwd', r.dir]);
    assert.equal(again.code, EXIT.badInput, 'nothing drives it or waits any more');
    assert.match(again.stderr, /is not being planned or driven \(it is cancelled\)/);
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
