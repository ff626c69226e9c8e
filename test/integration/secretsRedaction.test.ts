import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { startCli, writeInputs, type CliResult } from '../helpers/cli';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

const repos: TempRepo[] = [];
after(() => repos.forEach((r) => r.cleanup()));

// A value with no known token shape: only the variable's name makes it a secret.
const ENV_SECRET = 'envsecret-7c1d2e3f4a5b6978';
const GH_TOKEN = 'ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa';
// GATE_SAYS is not a secret-looking name: the token it holds is hidden by its shape alone.
const CHILD_ENV = { TASKLOOM_TEST_API_KEY: ENV_SECRET, GATE_SAYS: GH_TOKEN };
const MARKER = '[REDACTED]';

async function cli(args: string[]): Promise<CliResult> {
  return startCli(args, CHILD_ENV).done;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe('secrets never reach .taskloom/ (real CLI, scripted agent)', () => {
  it('redacts an env value and a token from agent failures, gate output, verdicts, notes and the goal', async () => {
    const r = makeTempRepo();
    repos.push(r);
    const plan = {
      goal: `ship it with ${GH_TOKEN}`,
      tasks: [{ id: 'a', title: 'Task a', description: 'do a', acceptance: [], dependsOn: [] }],
    };
    const scenario = {
      tasks: {
        a: {
          actor: [
            { fail: `could not log in with ${ENV_SECRET} nor ${GH_TOKEN}`, delayMs: 0 },
            { write: { 'a.txt': 'a\n' }, text: `done, used ${GH_TOKEN}`, delayMs: 0 },
          ],
          critic: [{ verdict: { decision: 'green', summary: `fine; saw ${ENV_SECRET}`, findings: [] }, delayMs: 0 }],
        },
      },
    };
    const inputs = writeInputs({ 'plan.json': plan, 'scenario.json': scenario });
    const gate = 'echo "gate sees $TASKLOOM_TEST_API_KEY and $GATE_SAYS"';
    // GATE_SAYS is not on the sandbox's allow-list: passed on purpose, so that the gate prints the token.
    const first = await cli(['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', '--gate', gate, '--pass-env', 'GATE_SAYS']);
    assert.equal(first.code, 1, first.stdout + first.stderr);

    const retried = await cli(['retry', 'a', '--note', `try the key ${ENV_SECRET} or ${GH_TOKEN}`, '--cwd', r.dir]);
    assert.equal(retried.code, 0, retried.stdout + retried.stderr);

    const files = filesUnder(join(r.dir, '.taskloom'));
    const names = files.map((f) => f.slice(r.dir.length + 1));
    for (const expected of ['events.jsonl', 'state.json', 'run.json', 'DECISIONS.md']) {
      assert.ok(names.some((n) => n.endsWith(expected)), `${expected} is missing from ${names.join(', ')}`);
    }
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      assert.ok(!text.includes(ENV_SECRET), `${file} holds the environment secret`);
      assert.ok(!text.includes(GH_TOKEN), `${file} holds the token`);
      assert.ok(!text.includes(GH_TOKEN.slice(0, 12)), `${file} holds a piece of the token`);
    }
    const events = readFileSync(files.find((f) => f.endsWith('events.jsonl'))!, 'utf8');
    // The agent's failure, the gate's output, the verdict, the note and the goal each show the marker.
    for (const [what, pattern] of [
      ['agent failure', /could not log in with \[REDACTED\] nor \[REDACTED\]/],
      ['gate output', /gate sees \[REDACTED\] and \[REDACTED\]/],
      ['verdict', /fine; saw \[REDACTED\]/],
      ['human note', /try the key \[REDACTED\] or \[REDACTED\]/],
      ['goal', /ship it with \[REDACTED\]/],
    ] as const) {
      assert.match(events, pattern, what);
    }
    assert.ok(events.includes(MARKER));
    // What the CLI printed while it ran (the headless output channel) is clean too.
    for (const out of [first, retried]) {
      assert.ok(!(out.stdout + out.stderr).includes(ENV_SECRET), out.stdout + out.stderr);
      assert.ok(!(out.stdout + out.stderr).includes(GH_TOKEN), out.stdout + out.stderr);
    }
  });
});
