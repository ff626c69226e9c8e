import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ResponseError } from 'vscode-jsonrpc/node';
import { GetRunRequest, ListRunsRequest, ResumeRequest, type UserFacingErrorData } from '../../src/protocol/engineProtocol';
import { runCli, writeInputs, type CliResult } from '../helpers/cli';
import { EngineServerProcess } from '../helpers/engineServer';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

// A repository that ships its own .taskloom/ (a crafted run) must not run anything when opened,
// and resuming it must ask first. "Created here" is decided by the per-user record in
// TASKLOOM_STATE_DIR, a temp folder here.
const stateDir = realpathSync(mkdtempSync(join(tmpdir(), 'taskloom-state-')));
/** The crafted runs' gate: recognisable in what a refusal lists; whether it ran, the run's log says (gateRuns). */
const CRAFTED_GATE = 'echo the crafted gate ran';
const repos: TempRepo[] = [];
after(() => {
  repos.forEach((r) => r.cleanup());
  rmSync(stateDir, { recursive: true, force: true });
});

const env = { TASKLOOM_STATE_DIR: stateDir };
const cli = (args: string[]): CliResult => runCli(args, { env });
const task = (id: string) => ({ id, title: `Task ${id}`, description: `do ${id}`, acceptance: [], dependsOn: [] });
const green = { verdict: { decision: 'green', summary: 'fine', findings: [] }, delayMs: 0 };
const scenario = { tasks: { a: { actor: [{ quota: true, delayMs: 0 }, { write: { 'a.txt': 'a\n' }, delayMs: 0 }], critic: [green] } } };

/** A run paused by a quota hit (resumable), created by the CLI in a fresh repository. */
function pausedRun(): TempRepo {
  const r = makeTempRepo();
  repos.push(r);
  const inputs = writeInputs({ 'plan.json': { goal: 'foreign', tasks: [task('a')] }, 'scenario.json': scenario });
  const first = cli(['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', '--gate', 'true']);
  assert.equal(first.code, 1, first.stdout + first.stderr);
  assert.match(first.stdout, /paused/);
  return r;
}

/** A clone of `source` (same commits) carrying a copy of its .taskloom/ whose gate is CRAFTED_GATE. */
function craftedCopy(source: TempRepo): TempRepo {
  return craftedCopyWithGate(source, CRAFTED_GATE);
}

/** How many times a gate ran in the repository's runs, as their logs record it. */
function gateRuns(r: TempRepo): number {
  const runs = join(r.dir, '.taskloom', 'runs');
  return readdirSync(runs).reduce((n, id) => n + (readFileSync(join(runs, id, 'events.jsonl'), 'utf8').match(/"type":"gate_result"/g)?.length ?? 0), 0);
}

/** The same, with any gate command. */
function craftedCopyWithGate(source: TempRepo, gate: string): TempRepo {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'taskloom-crafted-')));
  runGit(['clone', '-q', source.dir, dir]);
  cpSync(join(source.dir, '.taskloom'), join(dir, '.taskloom'), { recursive: true });
  rmSync(join(dir, '.taskloom', 'lock'), { force: true });
  const craft = (file: string) => {
    if (!existsSync(file)) return;
    const text = readFileSync(file, 'utf8');
    // The crafted run also asks to run unconfined, which the refusal must show.
    const crafted = text.replaceAll('"gateCommands":["true"]', `"gateCommands":[${JSON.stringify(gate)}]`).replaceAll('"sandbox":{"mode":"auto"', '"sandbox":{"mode":"off"');
    writeFileSync(file, crafted);
  };
  for (const runId of readdirSync(join(dir, '.taskloom', 'runs'))) craft(join(dir, '.taskloom', 'runs', runId, 'events.jsonl'));
  craft(join(dir, '.taskloom', 'state.json'));
  assert.ok(readdirSync(join(dir, '.taskloom', 'runs')).some((id) => readFileSync(join(dir, '.taskloom', 'runs', id, 'events.jsonl'), 'utf8').includes(gate)));
  const r: TempRepo = { dir, git: (args) => runGit(args, dir), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
  repos.push(r);
  return r;
}

function runGit(args: string[], cwd?: string): string {
  const result = spawnSync('git', args, { cwd, encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.trimEnd();
}

describe('runs not started by Taskloom on this machine', () => {
  it('resumes a run the CLI created here without asking', () => {
    const r = pausedRun();
    const resumed = cli(['resume', '--cwd', r.dir]);
    assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
    assert.doesNotMatch(resumed.stdout, /not started by Taskloom/);
    assert.ok(existsSync(join(stateDir, 'created-runs.jsonl')));
  });

  it('never runs a crafted run when opened, refuses to resume it without a terminal, and resumes it with --yes', () => {
    const crafted = craftedCopy(pausedRun());
    const ran = gateRuns(crafted);

    const runs = cli(['runs', '--cwd', crafted.dir]);
    assert.equal(runs.code, 0, runs.stderr);
    const trace = cli(['trace', '--cwd', crafted.dir]);
    assert.equal(trace.code, 0, trace.stderr);
    assert.equal(gateRuns(crafted), ran, 'runs/trace ran the crafted gate');

    const refused = cli(['resume', '--cwd', crafted.dir]);
    assert.equal(refused.code, 2, refused.stdout + refused.stderr);
    assert.match(refused.stdout, /This run was not started by Taskloom on this machine/);
    assert.match(refused.stdout, /Resuming it would run:/);
    assert.ok(refused.stdout.includes(CRAFTED_GATE), refused.stdout);
    assert.ok(refused.stdout.includes('sandbox: off (unconfined)'), refused.stdout);
    assert.match(refused.stderr, /pass --yes to resume it anyway/);
    assert.equal(gateRuns(crafted), ran, 'a refused resume ran the crafted gate');

    const decided = cli(['skip', 'a', '--cwd', crafted.dir]);
    assert.equal(decided.code, 2, decided.stdout + decided.stderr);
    assert.equal(gateRuns(crafted), ran);

    const resumed = cli(['resume', '--yes', '--cwd', crafted.dir]);
    assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
    assert.ok(gateRuns(crafted) > ran, 'resume --yes should have run the (now trusted) gate');
  });

  it('never signals the processes a repository lists in its own .taskloom/processes.json', async () => {
    // A live process group, listed exactly as an engine would list its own (pgid and kernel start time).
    const bystander = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
    try {
      const stat = readFileSync(`/proc/${bystander.pid}/stat`, 'utf8');
      const startedAt = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
      const crafted = craftedCopy(pausedRun());
      writeFileSync(join(crafted.dir, '.taskloom', 'processes.json'), JSON.stringify({ owner: 1, groups: [{ pgid: bystander.pid, startedAt }] }));
      const resumed = cli(['resume', '--yes', '--cwd', crafted.dir]);
      assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
      assert.doesNotMatch(resumed.stderr, /stopped \d+ agent or gate process group/);
      assert.equal(bystander.exitCode, null, 'the listed process is still running');
      assert.equal(bystander.signalCode, null);
      process.kill(bystander.pid!, 0);
    } finally {
      bystander.kill('SIGKILL');
    }
  });

  it('the engine server lists and reads a crafted run without running it, and resumes it only with trustRun', async () => {
    const crafted = craftedCopy(pausedRun());
    const ran = gateRuns(crafted);
    const server = await EngineServerProcess.start(env);
    try {
      const { runs } = await server.request(ListRunsRequest.type, { folder: crafted.dir });
      assert.equal(runs.length, 1);
      assert.equal(runs[0]!.foreign, true);
      const runId = runs[0]!.runId;
      await server.request(GetRunRequest.type, { folder: crafted.dir, runId });
      assert.equal(gateRuns(crafted), ran, 'listRuns/getRun ran the crafted gate');

      let data: UserFacingErrorData | undefined;
      await assert.rejects(server.request(ResumeRequest.type, { folder: crafted.dir, runId }), (error: unknown) => {
        assert.ok(error instanceof ResponseError, String(error));
        data = error.data as UserFacingErrorData;
        assert.match(error.message, /not started by Taskloom on this machine/);
        return true;
      });
      assert.equal(data?.kind, 'bad_input');
      assert.ok(data?.hint);
      assert.ok(data?.unknownRun?.whatWouldRun.some((l) => l.includes(CRAFTED_GATE)), JSON.stringify(data));
      assert.equal(gateRuns(crafted), ran, 'a refused resume ran the crafted gate');

      const before = server.lastSeq(runId);
      await server.request(ResumeRequest.type, { folder: crafted.dir, runId, trustRun: true });
      await server.waitForEnd(runId, before);
      assert.ok(gateRuns(crafted) > ran, 'a trusted resume runs the gate');
      assert.equal((await server.request(ListRunsRequest.type, { folder: crafted.dir })).runs[0]!.foreign, false, 'trusted runs are known');
    } finally {
      await server.stop();
    }
  });
});
