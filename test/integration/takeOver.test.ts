import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import type { Plan } from '../../src/engine/domain/plan';
import { EngineShutdown } from '../../src/engine/run/engineShutdown';
import { takeOver } from '../../src/engine/usecases/takeOver';
import { NothingToTakeOverError } from '../../src/engine/usecases/useCaseErrors';
import { runCli } from '../helpers/cli';
import { green, task, trace, write } from '../helpers/scriptedRun';
import { doorsOfThisFile, driveToEnd, scriptedRun } from '../helpers/useCaseDoor';

const { door, repo } = doorsOfThisFile();
const SESSION = '6f1c2a52-3b7e-4c1d-9a0e-5d4c3b2a1f00';
const scratch = mkdtempSync(join(tmpdir(), 'taskloom-takeover-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * A stand-in for Claude Code. Called as an actor (`-p`), it names its session, says so in its
 * config folder, and works for ten minutes. Called as a person's session, it prints what it was
 * given and what it could do (read a key planted in HOME, write beside the repository), and writes
 * the task's file in its working directory.
 */
function fakeClaude(secret: string, outside: string): string {
  const dir = join(scratch, 'bin');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'claude');
  writeFileSync(
    path,
    `#!${process.execPath}
const fs = require('node:fs');
const args = process.argv.slice(2);
const can = (act) => { try { act(); return true; } catch { return false; } };
if (args.includes('-p')) {
  process.stdout.write(JSON.stringify({ type: 'system', subtype: 'init', session_id: '${SESSION}', model: 'fake', tools: [], cwd: process.cwd() }) + '\\n');
  fs.writeFileSync(require('node:path').join(process.env.CLAUDE_CONFIG_DIR, 'actor-started'), '');
  setTimeout(() => {}, 600000);
} else {
  const report = { argv: args, cwd: process.cwd(), readSecret: can(() => fs.readFileSync(${JSON.stringify(secret)})), triedOutside: can(() => fs.writeFileSync(${JSON.stringify(outside)}, 'x')) };
  fs.writeFileSync('a.txt', 'by the person\\n');
  process.stdout.write('FAKE-CLAUDE ' + JSON.stringify(report) + '\\n');
}
`,
  );
  chmodSync(path, 0o755);
  return path;
}

describe('take over: the agent\'s own session, resumed in the task\'s worktree, confined', () => {
  it('stops a task its dead drive left in flight, opens `claude --resume` confined, and hands it back to be gated and merged', async () => {
    const home = join(scratch, 'home');
    const config = join(home, 'config');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    const secret = join(home, '.ssh', 'id_ed25519');
    writeFileSync(secret, 'PLANTED-SECRET\n');
    process.env.CLAUDE_CONFIG_DIR = config;
    const r = repo();
    const claude = fakeClaude(secret, join(r.dir, 'outside.txt'));
    const d = await door({}, r.dir);
    const plan: Plan = { goal: 'take over', tasks: [task('a')] };
    const session = scriptedRun(d, plan, { tasks: { a: { critic: [green] } } }, {
      settings: { roles: { actor: { agent: 'claude' }, critic: { agent: 'scripted' }, planner: { agent: 'scripted' } }, claudePath: claude, gateCommands: ['test -f a.txt'], gateBaseline: false },
    });
    // The window driving it closes while the actor works: the task is left in flight, with the actor's session.
    const controller = new AbortController();
    const drive = d.engine.drive(session, controller.signal);
    for (let i = 0; i < 1200 && !existsSync(join(config, 'actor-started')); i++) await sleep(100);
    controller.abort(new EngineShutdown('test: the window closed'));
    assert.equal(await drive, 'interrupted');
    assert.equal(session.task('a').state, 'BUILDING');
    assert.equal(session.task('a').actorSessionId, SESSION);
    const worktree = session.task('a').worktreePath!;
    d.close();

    const env = { HOME: home, CLAUDE_CONFIG_DIR: config };
    const taken = runCli(['take-over', 'a', '--cwd', r.dir], { env });
    assert.equal(taken.code, 1, `${taken.stdout}\n${taken.stderr}`);
    const report = JSON.parse(/FAKE-CLAUDE (.*)/.exec(taken.stdout)?.[1] ?? 'null') as { argv: string[]; cwd: string; readSecret: boolean };
    assert.deepEqual(report.argv, ['--resume', SESSION, '--restricted', '--strict-mcp-config', '--tools', 'Read,Edit,Write,Glob,Grep,Bash']);
    assert.equal(report.cwd, worktree);
    assert.equal(report.readSecret, false, `the key planted in HOME is not there: ${taken.stdout}`);
    // What got through: inside, the path is the sandbox's own scratch, gone with it.
    assert.ok(!existsSync(join(r.dir, 'outside.txt')), 'nothing beside the worktree was written');
    assert.match(taken.stdout, /a is yours: claude, resuming its session 6f1c2a52/);
    assert.match(taken.stdout, /Confined as its agent was/);
    assert.match(taken.stdout, /Hand it back: {2}taskloom continue a --run /);
    const a = trace(r.dir).tasks[0]!;
    assert.equal(a.state, 'NEEDS_HUMAN');
    assert.equal(a.lastReason, 'taken over by you');
    assert.deepEqual(a.transitions.slice(-2).map((t) => t.event), ['HUMAN_STOPPED', 'HUMAN_TOOK_OVER']);

    const handedBack = runCli(['continue', 'a', '--cwd', r.dir], { env });
    assert.equal(handedBack.code, 0, `${handedBack.stdout}\n${handedBack.stderr}`);
    const merged = trace(r.dir).tasks[0]!;
    assert.equal(merged.state, 'MERGED');
    assert.ok(merged.transitions.some((t) => t.event === 'MECHANICAL_PASSED') && merged.transitions.some((t) => t.event === 'CRITIC_GREEN'), 'gated and reviewed');
    assert.equal(r.git(['show', `${merged.mergeCommit}:a.txt`]), 'by the person', 'what the person wrote is what merged');
  });

  it('refuses a task that neither works nor waits for you, and one without a worktree', async () => {
    const d = await door();
    const plan: Plan = { goal: 'done', tasks: [task('a'), task('b', ['a'])] };
    const session = scriptedRun(d, plan, { tasks: { a: { actor: [write({ 'a.txt': 'a\n' })], critic: [green] }, b: { actor: [{ fail: 'no', delayMs: 0 }] } } }, { settings: { maxAttempts: 1 } });
    assert.equal(await driveToEnd(d, session), 'needs_human');
    await assert.rejects(takeOver(d, { taskId: 'a', by: 'you' }), (error: unknown) => {
      assert.ok(error instanceof NothingToTakeOverError, String(error));
      assert.equal(error.message, 'Task "a" cannot be taken over: it is merged');
      return true;
    });
    const seq = session.state.lastSeq;
    const taken = await takeOver(d, { taskId: 'b', by: 'you' });
    assert.equal(taken.session.program, 'shell', 'the scripted agent has no session of its own: a shell');
    assert.equal(taken.session.worktree, session.task('b').worktreePath);
    assert.equal(session.task('b').lastReason, 'taken over by you');
    assert.equal(session.state.lastSeq, seq + 1);
    await takeOver(d, { taskId: 'b', by: 'you' });
    assert.equal(session.state.lastSeq, seq + 1, 'taking it over again records nothing more');
  });
});
