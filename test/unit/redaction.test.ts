import assert from 'node:assert/strict';
import { launchUnconfined } from '../../src/engine/process/launcher';
import { tmpdir } from 'node:os';
import { describe, it } from 'node:test';
import { redactEventBody, redactorFor, redactSecrets, REDACTED } from '../../src/engine/io/redactSecrets';
import { runGate } from '../../src/engine/gate/runGate';
import { CappedOutput } from '../../src/engine/process/cappedOutput';

const NO_ENV = {};
const TOKEN = 'tok-9f8e7d6c5b4a39281706'; // no known shape: only its env variable makes it a secret

/** No piece of `secret` of `piece` characters or more is in `text`. */
function assertNoPiece(text: string, secret: string, piece = 6): void {
  for (let i = 0; i + piece <= secret.length; i += 1) {
    assert.ok(!text.includes(secret.slice(i, i + piece)), `"${secret.slice(i, i + piece)}" of the secret leaked in: ${text.slice(0, 200)}…`);
  }
}

describe('redaction: environment values', () => {
  it('hides values of variables named like secrets, AUTH included but not AUTHOR', () => {
    const env = { SERVICE_AUTH: 'auth-value-1234', GIT_AUTHOR_NAME: 'Ada Lovelace', ANTHROPIC_API_KEY: 'plain-looking-key', HOME: '/home/ada' };
    assert.equal(
      redactSecrets('a auth-value-1234 b plain-looking-key c Ada Lovelace /home/ada', env),
      `a ${REDACTED} b ${REDACTED} c Ada Lovelace /home/ada`,
    );
  });

  it('treats regular-expression characters in values literally, longest first', () => {
    const env = { A_SECRET: 'a+b(c)*d$e', B_SECRET: 'a+b(c)*d$e.[x]' };
    assert.deepEqual(redactorFor(env).envValues, ['a+b(c)*d$e.[x]', 'a+b(c)*d$e']);
    assert.equal(redactSecrets('1 a+b(c)*d$e.[x] 2 a+b(c)*d$e 3 abbbcd', env), `1 ${REDACTED} 2 ${REDACTED} 3 abbbcd`);
  });

  it('ignores values shorter than 8 characters', () => {
    assert.equal(redactSecrets('short1 here', { MY_TOKEN: 'short1' }), 'short1 here');
  });

  it('compiles once per environment object', () => {
    const env = { X_TOKEN: 'cached-value-123' };
    assert.equal(redactorFor(env), redactorFor(env));
  });
});

describe('redaction: token shapes', () => {
  it('hides Anthropic, OpenAI, GitHub, AWS, Slack tokens and JWTs', () => {
    const samples = [
      'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv_wx-yz',
      'sk-AbCdEfGhIjKlMnOpQrStUvWx',
      'ghs_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
      'github_pat_11ABCDEFG0123456789_abcdefghijklmnop',
      'AKIAIOSFODNN7EXAMPLE',
      'xoxa-123456789012-abcdefghijkl',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    ];
    for (const token of samples) {
      assert.equal(redactSecrets(`x=(${token}) y`, NO_ENV), `x=(${REDACTED}) y`, token);
    }
  });

  it('keeps "Bearer" and names of assignments, hides their values', () => {
    assert.equal(redactSecrets('authorization: bearer abcdefgh.ijkl', NO_ENV), `authorization: bearer ${REDACTED}`);
    assert.equal(redactSecrets('export AUTH_TOKEN=xyz987 && run', NO_ENV), `export AUTH_TOKEN=${REDACTED} && run`);
    assert.equal(redactSecrets("{'Secret': 'shh it is'}", NO_ENV), `{'Secret': '${REDACTED}'}`);
  });

  it('hides a PEM key cut off by the output cap, and the end of one whose start was cut', () => {
    const head = 'start\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA';
    const tail = 'QUFBQUFBQUFBQUFBQUFBQUFB\n-----END OPENSSH PRIVATE KEY-----\nnext line';
    const cut = `${head}\n… 1234 bytes omitted …\n${tail}`;
    assert.equal(redactSecrets(cut, NO_ENV), `start\n${REDACTED}\n… 1234 bytes omitted …\n${REDACTED}\nnext line`);
  });

  it('returns ordinary text unchanged (the same string)', () => {
    const text = 'npm test: 12 passing, 0 failing; tokens: 300; key points: sort first; sk-short';
    assert.equal(redactSecrets(text, NO_ENV), text);
  });
});

describe('redaction: event bodies', () => {
  const env = { TASKLOOM_TEST_API_KEY: TOKEN };
  const redactor = redactorFor(env);

  it('redacts every string, however deep, and keeps identifiers', () => {
    const body = {
      type: 'gate_result',
      taskId: 'a',
      attempt: 1,
      passed: false,
      commands: [{ command: `echo ${TOKEN}`, exitCode: 1, timedOut: false, durationMs: 3, output: `${TOKEN}\nghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789\n` }],
    };
    const out = redactEventBody(body, redactor);
    assert.notEqual(out, body);
    assert.deepEqual(out, {
      ...body,
      commands: [{ ...body.commands[0], command: `echo ${REDACTED}`, output: `${REDACTED}\n${REDACTED}\n` }],
    });
    assert.equal(body.commands[0]!.output.includes(TOKEN), true, 'the input is not modified');
  });

  it('returns the very same object when there is nothing to hide', () => {
    const body = { type: 'task_transition', taskId: 'a', event: 'BUILD_STARTED', from: 'PENDING', to: 'BUILDING', reason: 'dependencies are green' };
    assert.equal(redactEventBody(body, redactor), body);
    const numbers = { type: 'runner_call', usage: { inputTokens: 1, outputTokens: 2 }, durationMs: 5 };
    assert.equal(redactEventBody(numbers, redactor), numbers);
  });
});

describe('redaction: gate output cut by the cap or split across chunks', () => {
  const env = { MY_DEPLOY_TOKEN: TOKEN };

  it('never cuts a secret at the end of the head', () => {
    const out = new CappedOutput(64);
    out.append(`${'h'.repeat(20)} ${TOKEN.slice(0, 8)}`); // the token arrives in two chunks
    out.append(`${TOKEN.slice(8)} ${'x'.repeat(200)} end`);
    const text = redactSecrets(out.toString(), env);
    assertNoPiece(text, TOKEN);
    assert.match(text, /^h{20} \n… \d+ bytes omitted …\n/);
  });

  it('never cuts a secret at the start of the tail', () => {
    const out = new CappedOutput(64);
    out.append(`start ${'x'.repeat(200)} ${TOKEN.slice(0, 5)}`);
    out.append(`${TOKEN.slice(5)} ${'t'.repeat(25)}`);
    const text = redactSecrets(out.toString(), env);
    assertNoPiece(text, TOKEN);
    assert.match(text, /\n… \d+ bytes omitted …\nt{25}$/);
    assert.equal(out.omitted + Buffer.byteLength(text.split('\n').at(-1)!) + 'start '.length, 6 + 200 + 1 + TOKEN.length + 1 + 25);
  });

  it('redacts a secret a gate command prints in two pieces, and around the 64 KiB cut', async () => {
    // Head and tail are 32 KiB each: the first token straddles the head's end, the second the tail's start.
    const script = [
      "const t = process.env.MY_DEPLOY_TOKEN;",
      "process.stdout.write('x'.repeat(32760) + ' ' + t.slice(0, 4));",
      "setTimeout(() => process.stdout.write(t.slice(4) + ' ' + 'y'.repeat(50000) + ' ' + t + ' ' + 'z'.repeat(32768 - 10)), 100);",
    ].join(' ');
    const gate = await runGate({
      launch: launchUnconfined,
      commands: [`node -e "${script}"`, 'false'],
      cwd: tmpdir(),
      timeoutMs: 30_000,
      idleTimeoutMs: 30_000,
      signal: new AbortController().signal,
      env: { ...process.env, ...env },
    });
    const { output } = gate.commands[0]!;
    assert.match(output, /bytes omitted/);
    assertNoPiece(output, TOKEN);
  });
});
