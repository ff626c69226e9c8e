import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CodexEventParser, readUsage, usageDelta } from '../../src/engine/agents/codex/codexEventParser';
import { CODEX_PRICES, costOf, DEFAULT_PRICE, priceOf } from '../../src/engine/agents/codex/codexPrices';
import { classifyCodexFailure, codexArgs, toTokenUsage } from '../../src/engine/agents/codex/codexRunner';
import { sandboxCheckArgs, sandboxFor } from '../../src/engine/agents/codex/codexSandbox';
import { extractJson } from '../../src/engine/text/jsonInText';
import type { RunnerActivity } from '../../src/engine/agents/runner';
import { LineSplitter } from '../../src/engine/process/lineSplitter';

// Contract tests: the transcripts were printed by the real codex-cli (0.171.0) against the
// scripted model (re-record with test/fixtures/codex/recordTranscript.ts after an upgrade).
const fixtures = join(__dirname, '..', 'fixtures', 'codex');
const transcript = readFileSync(join(fixtures, 'transcript.jsonl'), 'utf8');
const failedTranscript = readFileSync(join(fixtures, 'transcript-failed.jsonl'), 'utf8');

function feed(text: string, chunkSize?: number): { parser: CodexEventParser; activities: RunnerActivity[]; types: string[] } {
  const parser = new CodexEventParser();
  const activities: RunnerActivity[] = [];
  const types: string[] = [];
  const splitter = new LineSplitter();
  const onLine = (line: string) => {
    const parsed = parser.push(line);
    if (parsed.type) types.push(parsed.type);
    activities.push(...parsed.activities);
  };
  if (chunkSize === undefined) {
    text.split('\n').forEach(onLine);
  } else {
    for (let i = 0; i < text.length; i += chunkSize) splitter.push(text.slice(i, i + chunkSize)).forEach(onLine);
    splitter.end().forEach(onLine);
  }
  return { parser, activities, types };
}

describe('codex --json transcript (contract)', () => {
  it('yields the thread id, the final message and the cumulative usage', () => {
    const { parser, types } = feed(transcript);
    const s = parser.state;
    assert.match(s.threadId ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(s.lastAgentMessage, 'Added hello.txt.');
    assert.equal(s.turnsStarted, 1);
    assert.equal(s.turnsCompleted, 1);
    assert.equal(s.turnFailure, undefined);
    // The three scripted requests: input 1200+1400+1500, cached 0+1100+1300, output 40+60+15 (12 of it reasoning).
    assert.deepEqual(s.usage, {
      inputTokens: 4100,
      cachedInputTokens: 2400,
      cacheWriteInputTokens: 0,
      outputTokens: 115,
      reasoningOutputTokens: 12,
    });
    assert.equal(s.otherLines, 0);
    assert.deepEqual(
      [...new Set(types)].sort(),
      ['item.completed', 'item.started', 'thread.started', 'turn.completed', 'turn.started'],
    );
  });

  it('turns the items into activity: reasoning, the command, the edit, the answer', () => {
    const { activities } = feed(transcript);
    const messages = activities.map((a) => `${a.kind}: ${a.message}`);
    assert.ok(messages.some((m) => /^status: warning: Model metadata/.test(m)), messages.join('\n'));
    assert.ok(messages.includes('status: thinking: Look at the repository first.'), messages.join('\n'));
    // Codex wraps every command in `/bin/bash -lc`: the transcript shows the command itself.
    assert.ok(messages.includes('tool: $ ls'), messages.join('\n'));
    assert.ok(messages.includes('tool: $ ls → exit 0'), messages.join('\n'));
    assert.ok(messages.some((m) => /^tool: edited: A \/.*\/hello\.txt$/.test(m)), messages.join('\n'));
    assert.ok(messages.includes('text: Added hello.txt.'), messages.join('\n'));
  });

  it('parses the same whatever the chunking of the pipe', () => {
    const whole = feed(transcript).parser.state;
    for (const size of [1, 7, 64, 1000]) assert.deepEqual(feed(transcript, size).parser.state, whole, `chunks of ${size}`);
  });

  it('a failed turn: the failure, no usage, no answer', () => {
    const { parser } = feed(failedTranscript);
    const s = parser.state;
    assert.equal(s.turnsCompleted, 0);
    assert.equal(s.turnFailure, 'exceeded retry limit, last status: 429 Too Many Requests');
    assert.deepEqual(s.errors, ['exceeded retry limit, last status: 429 Too Many Requests']);
    assert.equal(s.usage, undefined);
    assert.equal(s.lastAgentMessage, undefined);
    assert.equal(classifyCodexFailure(s.turnFailure!), 'quota');
  });
});

describe('CodexEventParser edge cases', () => {
  it('ignores lines that are not codex events and keeps bounded state', () => {
    const parser = new CodexEventParser();
    assert.deepEqual(parser.push('Reading prompt from stdin...').activities, []);
    assert.deepEqual(parser.push('{"half": ').activities, []);
    assert.deepEqual(parser.push('[1,2]').activities, []);
    for (let i = 0; i < 100; i++) parser.push(JSON.stringify({ type: 'error', message: `Reconnecting... ${i}/100` }));
    assert.equal(parser.state.otherLines, 3);
    assert.equal(parser.state.errors.length, 8);
    assert.equal(parser.state.errors.at(-1), 'Reconnecting... 99/100');
    const huge = 'x'.repeat(100_000);
    const { activities } = parser.push(JSON.stringify({ type: 'item.completed', item: { type: 'agent_message', text: huge } }));
    assert.equal(parser.state.lastAgentMessage, huge);
    assert.ok(activities[0]!.message.length <= 400);
  });

  it('a completed turn clears an earlier failure; unknown events are still activity', () => {
    const parser = new CodexEventParser();
    parser.push('{"type":"turn.failed","error":{"message":"boom"}}');
    assert.equal(parser.state.turnFailure, 'boom');
    parser.push('{"type":"turn.completed","usage":{"input_tokens":5,"cached_input_tokens":1,"output_tokens":2}}');
    assert.equal(parser.state.turnFailure, undefined);
    assert.equal(parser.state.usage?.inputTokens, 5);
    assert.equal(parser.state.usage?.cacheWriteInputTokens, 0);
    assert.deepEqual(parser.push('{"type":"session.something_new"}'), {
      type: 'session.something_new',
      activities: [{ kind: 'status', message: 'session.something_new' }],
    });
  });

  it('usage deltas and conversion to Taskloom usage', () => {
    const before = readUsage({ input_tokens: 2300, cached_input_tokens: 1200, output_tokens: 70, reasoning_output_tokens: 10 })!;
    const after = readUsage({ input_tokens: 3800, cached_input_tokens: 2500, output_tokens: 77, reasoning_output_tokens: 10 })!;
    const delta = usageDelta(after, before);
    assert.deepEqual(delta, { inputTokens: 1500, cachedInputTokens: 1300, cacheWriteInputTokens: 0, outputTokens: 7, reasoningOutputTokens: 0 });
    assert.deepEqual(usageDelta(before, after).inputTokens, 0, 'never negative');
    // 200 uncached × 1.25 + 1300 cached × 0.125 + 7 out × 10, per million.
    assert.deepEqual(toTokenUsage('gpt-5', delta), {
      inputTokens: 200,
      cacheReadTokens: 1300,
      cacheWriteTokens: 0,
      outputTokens: 7,
      costUsd: Math.round(((200 * 1.25 + 1300 * 0.125 + 7 * 10) / 1e6) * 1e6) / 1e6,
    });
    assert.equal(readUsage({ foo: 1 }), undefined);
  });
});

describe('codex prices', () => {
  it('has the usual models and a default for others', () => {
    for (const m of ['gpt-5', 'gpt-5-codex', 'gpt-5-mini', 'o4-mini', 'gpt-4.1']) assert.ok(CODEX_PRICES[m], m);
    assert.deepEqual(priceOf('gpt-5-codex'), { price: CODEX_PRICES['gpt-5-codex'], known: true, matched: 'gpt-5-codex' });
    assert.equal(priceOf('gpt-4.1-2025-04-14').matched, 'gpt-4.1');
    assert.equal(priceOf('gpt-5-mini-preview').matched, 'gpt-5-mini');
    assert.equal(priceOf('GPT-5').matched, 'gpt-5');
    assert.deepEqual(priceOf('some-new-model'), { price: DEFAULT_PRICE, known: false });
    assert.deepEqual(priceOf(undefined), { price: DEFAULT_PRICE, known: false });
  });

  it('costOf: uncached input, cached input and output at their own prices', () => {
    const usage = { inputTokens: 1_000_000, cacheReadTokens: 1_000_000, cacheWriteTokens: 0, outputTokens: 1_000_000 };
    assert.equal(costOf('gpt-5', usage), 1.25 + 0.125 + 10);
    assert.equal(costOf('gpt-5-mini', usage), 0.25 + 0.025 + 2);
    assert.equal(costOf('o4-mini', { ...usage, cacheReadTokens: 0, outputTokens: 0 }), 1.1);
    assert.equal(costOf('unknown-x', usage), DEFAULT_PRICE.input + DEFAULT_PRICE.cachedInput + DEFAULT_PRICE.output);
    assert.equal(costOf('gpt-5', { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0 }), 0);
  });
});

describe('codex argv', () => {
  const base = { role: 'actor' as const, access: 'workspace-write' as const };

  it('actor writes, critic and planner read; the prompt is never an argument', () => {
    assert.deepEqual(codexArgs({ ...base, model: 'gpt-5-codex' }), [
      'exec', '--json', '--skip-git-repo-check', '-m', 'gpt-5-codex', '--sandbox', 'workspace-write', '-',
    ]);
    assert.deepEqual(codexArgs({ role: 'critic', access: 'read-only' }, { schemaFile: '/tmp/s.json' }), [
      'exec', '--json', '--skip-git-repo-check', '--output-schema', '/tmp/s.json', '--sandbox', 'read-only', '-',
    ]);
    assert.equal(sandboxFor({ role: 'critic', access: 'workspace-write' }), 'read-only', 'a critic never writes');
    assert.equal(sandboxFor({ role: 'planner', access: 'workspace-write' }), 'read-only');
    assert.equal(sandboxFor({ role: 'actor', access: 'read-only' }), 'read-only');
  });

  it('the call marker reaches the tools through shell_environment_policy', () => {
    assert.deepEqual(codexArgs(base, { marker: 'm-1', configOverrides: ['a=1'] }), [
      'exec', '--json', '--skip-git-repo-check', '-c', 'a=1', '-c', 'shell_environment_policy.set.TASKLOOM_AGENT_CALL="m-1"',
      '--sandbox', 'workspace-write', '-',
    ]);
  });

  it('a writing actor may write its worktree and its scratch folder, not /tmp or $TMPDIR', () => {
    const confined = [
      '-c', 'sandbox_workspace_write.exclude_slash_tmp=true',
      '-c', 'sandbox_workspace_write.exclude_tmpdir_env_var=true',
      '-c', 'sandbox_workspace_write.writable_roots=["/s/tmp"]',
      '-c', 'shell_environment_policy.set.TMPDIR="/s/tmp"',
    ];
    assert.deepEqual(codexArgs(base, { scratchDir: '/s/tmp', configOverrides: ['sandbox_workspace_write.writable_roots=["/"]'] }), [
      'exec', '--json', '--skip-git-repo-check', '-c', 'sandbox_workspace_write.writable_roots=["/"]', ...confined,
      '--sandbox', 'workspace-write', '-',
    ]);
    assert.ok(!codexArgs({ role: 'critic', access: 'read-only' }, { scratchDir: '/s/tmp' }).includes('-c'), 'read-only needs no roots');
  });

  it('resume: the thread id, the sandbox through -c after the user overrides', () => {
    assert.deepEqual(codexArgs({ ...base, resumeSessionId: 'abc-123' }, { configOverrides: ['sandbox_mode="danger-full-access"'] }), [
      'exec', 'resume', '--json', '--skip-git-repo-check', '-c', 'sandbox_mode="danger-full-access"',
      '-c', 'sandbox_mode="workspace-write"', 'abc-123', '-',
    ]);
  });
});

describe('codex argv inside Taskloom\'s sandbox (confined)', () => {
  const base = { role: 'actor' as const, access: 'workspace-write' as const, confined: true };
  const bypass = '--dangerously-bypass-approvals-and-sandbox';

  it('no sandbox of codex\'s own: the bypass flag, and no mode, writable roots or TMPDIR', () => {
    const args = codexArgs(base, { scratchDir: '/s/tmp', marker: 'm-1', configOverrides: ['sandbox_mode="read-only"'] });
    assert.deepEqual(args, [
      'exec', '--json', '--skip-git-repo-check', '-c', 'sandbox_mode="read-only"',
      '-c', 'shell_environment_policy.set.TASKLOOM_AGENT_CALL="m-1"', bypass, '-',
    ]);
    assert.deepEqual(codexArgs({ role: 'critic', access: 'read-only', confined: true }, { schemaFile: '/tmp/s.json' }), [
      'exec', '--json', '--skip-git-repo-check', '--output-schema', '/tmp/s.json', bypass, '-',
    ]);
  });

  it('the marker and the task\'s variables still reach the tools; resume takes the flag too', () => {
    assert.deepEqual(codexArgs({ ...base, resumeSessionId: 'abc-123', env: { TASKLOOM_PORT: '4711' } }, { marker: 'm-1' }), [
      'exec', 'resume', '--json', '--skip-git-repo-check', '-c', 'shell_environment_policy.set.TASKLOOM_AGENT_CALL="m-1"',
      '-c', 'shell_environment_policy.set.TASKLOOM_PORT="4711"', bypass, 'abc-123', '-',
    ]);
  });

  it('unconfined calls never bypass codex\'s sandbox', () => {
    for (const input of [{ ...base, confined: false }, { role: 'actor' as const, access: 'workspace-write' as const }]) {
      assert.ok(!codexArgs(input).includes(bypass));
      assert.ok(!codexArgs({ ...input, resumeSessionId: 'abc-123' }).includes(bypass));
    }
  });
});

describe('the check of codex\'s own sandbox', () => {
  it('runs `true` in the call\'s sandbox: its mode and a writing actor\'s limits, without the user\'s overrides', () => {
    assert.deepEqual(sandboxCheckArgs({ role: 'actor', access: 'workspace-write' }, '/s/tmp'), [
      'sandbox',
      '-c', 'sandbox_workspace_write.exclude_slash_tmp=true',
      '-c', 'sandbox_workspace_write.exclude_tmpdir_env_var=true',
      '-c', 'sandbox_workspace_write.writable_roots=["/s/tmp"]',
      '-c', 'shell_environment_policy.set.TMPDIR="/s/tmp"',
      '-c', 'sandbox_mode="workspace-write"', '--', 'true',
    ]);
    assert.deepEqual(sandboxCheckArgs({ role: 'critic', access: 'read-only' }, undefined), ['sandbox', '-c', 'sandbox_mode="read-only"', '--', 'true']);
  });
});

describe('failure classification (messages seen from codex 0.171)', () => {
  const cases: Array<[string, string]> = [
    ['exceeded retry limit, last status: 429 Too Many Requests', 'quota'],
    ['rate limit exceeded: Rate limit reached for requests', 'quota'],
    ['Quota exceeded. Check your plan and billing details.', 'quota'],
    ['You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again later.', 'quota'],
    ['unexpected status 401 Unauthorized: Incorrect API key provided, url: http://127.0.0.1:1/v1/responses', 'auth'],
    ['Missing environment variable: `OPENAI_API_KEY`.', 'auth'],
    ['stream disconnected before completion: boom', 'agent_error'],
    ['{"error":{"message":"bad request thing","type":"invalid_request_error"}}', 'agent_error'],
  ];
  for (const [message, expected] of cases) {
    it(`${expected}: ${message.slice(0, 50)}`, () => assert.equal(classifyCodexFailure(message), expected));
  }
});

describe('extractJson', () => {
  it('finds the answer in whole, fenced, last-line and embedded forms', () => {
    assert.deepEqual(extractJson('{"verdict":"approve"}'), { verdict: 'approve' });
    assert.deepEqual(extractJson('Here:\n```json\n{"a":1}\n```\nbye'), { a: 1 });
    assert.deepEqual(extractJson('log line\n{"a":2}\n'), { a: 2 });
    assert.deepEqual(extractJson('The verdict is {"a": {"b": 3}} as you see.'), { a: { b: 3 } });
    assert.equal(extractJson('no json { here'), undefined);
    assert.equal(extractJson(''), undefined);
  });
});
