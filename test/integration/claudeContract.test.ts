import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { claudeArgs, claudeNotFoundMessage, CLAUDE_NOT_ON_PATH } from '../../src/engine/agents/claude/claudeArgs';
import { callUsage, classifyFailedResult, classifyMissingResult, isSuccess } from '../../src/engine/agents/claude/claudeOutcome';
import { ClaudeStreamParser } from '../../src/engine/agents/claude/claudeStreamParser';
import type { RunnerActivity } from '../../src/engine/agents/runner';
import { LineSplitter } from '../../src/engine/process/lineSplitter';

// Transcripts recorded from the real CLI (test/fixtures/claude/recordTranscripts.ts): the parser
// is held to what Claude Code really prints, not to what we think it prints.
const fixture = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', 'claude', name), 'utf8');

function parseAll(text: string, chunkSize = Infinity): { parser: ClaudeStreamParser; activity: RunnerActivity[] } {
  const parser = new ClaudeStreamParser();
  const splitter = new LineSplitter();
  const activity: RunnerActivity[] = [];
  const feed = (lines: string[]) => lines.forEach((l) => activity.push(...parser.push(l)));
  if (chunkSize === Infinity) feed(splitter.push(text));
  else for (let i = 0; i < text.length; i += chunkSize) feed(splitter.push(text.slice(i, i + chunkSize)));
  feed(splitter.end());
  return { parser, activity };
}

describe('claude stream-json contract (recorded transcripts)', () => {
  it('reads the actor transcript: session, model, tool calls, result, usage', () => {
    const text = fixture('transcript.jsonl');
    const { parser, activity } = parseAll(text);
    const s = parser.state;
    const sessionId = (JSON.parse(text.split('\n')[0]!) as { session_id: string }).session_id;
    assert.equal(s.sessionId, sessionId);
    assert.equal(s.model, 'claude-opus-5-5');
    assert.ok(s.tools?.includes('Write'));
    assert.equal(s.permissionMode, 'acceptEdits');
    assert.equal(s.otherLines, 0);
    assert.equal(s.toolCalls, 1);
    assert.ok(s.result);
    assert.equal(isSuccess(s.result), true);
    assert.equal(s.result.text, 'Created hello.txt.');
    assert.equal(s.result.numTurns, 2);
    assert.equal(s.result.sessionId, sessionId);
    assert.equal(s.result.hasStructured, false);
    // The server reported 1000/50/0/900 then 1200/30/800/40.
    const expected = { inputTokens: 2200, outputTokens: 80, cacheReadTokens: 800, cacheWriteTokens: 940 };
    assert.deepEqual(s.result.usage, expected);
    const { costUsd, ...sinceTokens } = s.result.sinceLastResult!;
    assert.deepEqual(sinceTokens, expected);
    assert.equal(costUsd, s.result.totalCostUsd);
    assert.ok(costUsd > 0);
    // The stream itself adds up to the same tokens (the fallback when no result line comes).
    assert.deepEqual(s.streamedUsage, expected);
    const tools = activity.filter((a) => a.kind === 'tool').map((a) => a.message);
    assert.equal(tools.length, 1);
    assert.match(tools[0]!, /^Write \/.*\/hello\.txt$/);
    assert.deepEqual(
      activity.filter((a) => a.kind === 'text').map((a) => a.message),
      ['I will create the file.', 'Created hello.txt.'],
    );
    assert.match(activity[0]!.message, /claude started \(model claude-opus-5-5, session /);
    assert.match(activity[activity.length - 1]!.message, /finished: success, 2 turns/);
  });

  it('gives the same state whatever the chunking of the pipe', () => {
    const text = fixture('transcript.jsonl');
    const whole = parseAll(text).parser.state;
    for (const size of [1, 7, 100, 4096]) assert.deepEqual(parseAll(text, size).parser.state, whole, `chunks of ${size}`);
  });

  it('reads the critic transcript: read-only tools and structured_output', () => {
    const { parser } = parseAll(fixture('transcript-critic.jsonl'));
    const s = parser.state;
    assert.deepEqual([...(s.tools ?? [])].sort(), ['Glob', 'Grep', 'Read', 'StructuredOutput']);
    assert.equal(s.permissionMode, 'dontAsk');
    assert.ok(s.result && isSuccess(s.result));
    assert.equal(s.result.hasStructured, true);
    assert.deepEqual(s.result.structured, { decision: 'approve', summary: 'Looks right.' });
    assert.deepEqual(JSON.parse(s.result.text), { decision: 'approve', summary: 'Looks right.' });
  });

  it('reads the quota transcript: api_retry, the synthetic error message, an is_error result', () => {
    const { parser, activity } = parseAll(fixture('transcript-quota.jsonl'));
    const s = parser.state;
    assert.ok(s.result);
    assert.equal(isSuccess(s.result), false);
    assert.equal(s.result.subtype, 'success'); // is_error decides, not the subtype
    assert.equal(s.result.isError, true);
    assert.equal(s.result.apiErrorStatus, 429);
    assert.equal(s.lastApiError?.status, 429);
    assert.match(s.lastApiError?.message ?? '', /429/);
    assert.ok(activity.some((a) => /API error HTTP 429 \(rate_limit\); retry 1\/1/.test(a.message)));
    assert.equal(classifyFailedResult(s.result, s).status, 'quota');
  });
});

describe('claude stream parser on lines the fixtures lack', () => {
  const result = (fields: Record<string, unknown>) =>
    JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'done', session_id: 's1', ...fields });

  it('keeps a rejected rate_limit_event and makes a failure a quota hit', () => {
    const p = new ClaudeStreamParser();
    const activity = p.push(
      JSON.stringify({ type: 'rate_limit_event', rate_limit_info: { status: 'rejected', resetsAt: 1_900_000_000, rateLimitType: 'five_hour' }, session_id: 's1' }),
    );
    assert.match(activity[0]!.message, /rate limit rejected \(five_hour\), resets 2030-/);
    p.push(JSON.stringify({ type: 'rate_limit_event', rate_limit_info: { status: 'allowed' } }));
    assert.equal(p.state.rateLimit?.status, 'allowed');
    assert.equal(p.state.rejectedRateLimit?.status, 'rejected');
    p.push(result({ is_error: true, result: 'Something went wrong' }));
    assert.equal(classifyFailedResult(p.state.result!, p.state).status, 'quota');
  });

  it('sorts failed results: max turns, usage limits, auth, other errors', () => {
    const classify = (fields: Record<string, unknown>) => {
      const p = new ClaudeStreamParser();
      p.push(result(fields));
      return classifyFailedResult(p.state.result!, p.state).status;
    };
    assert.equal(classify({ subtype: 'error_max_turns', is_error: true, result: undefined, errors: ['Reached maximum number of turns (2)'] }), 'max_turns');
    assert.equal(classify({ is_error: true, result: "You've hit your limit · resets 3pm (Europe/Paris)" }), 'quota');
    assert.equal(classify({ is_error: true, result: 'Claude AI usage limit reached|1760000000' }), 'quota');
    assert.equal(classify({ is_error: true, result: 'Credit balance is too low' }), 'quota');
    assert.equal(classify({ is_error: true, result: 'API Error: Request rejected (429) · rate_limit_error', api_error_status: 429 }), 'quota');
    assert.equal(classify({ is_error: true, result: 'Invalid API key · Fix external API key', api_error_status: 401 }), 'auth');
    assert.equal(classify({ is_error: true, result: 'Not logged in · Please run /login' }), 'auth');
    assert.equal(classify({ is_error: true, result: 'API Error: 500 api_error', api_error_status: 500 }), 'agent_error');
    assert.equal(classify({ subtype: 'error_during_execution', is_error: true, errors: ['No conversation found with session ID: x'] }), 'agent_error');
    assert.equal(classify({ is_error: true, result: 'Context limit reached · /compact or /clear to continue' }), 'agent_error');
  });

  it('does not let a 429 that a retry got past turn a later failure into a quota hit', () => {
    const p = new ClaudeStreamParser();
    p.push(JSON.stringify({ type: 'system', subtype: 'api_retry', attempt: 1, max_retries: 10, retry_delay_ms: 500, error_status: 429, error: 'rate_limit' }));
    p.push(result({ subtype: 'error_during_execution', is_error: true, result: undefined, errors: ['tool crashed'] }));
    assert.equal(classifyFailedResult(p.state.result!, p.state).status, 'agent_error');
  });

  it('tells quota and auth apart from a crash when no result line came', () => {
    const p = new ClaudeStreamParser();
    assert.equal(classifyMissingResult(p.state, ''), 'crashed');
    assert.equal(classifyMissingResult(p.state, 'Error: Invalid API key · Please run /login'), 'auth');
    p.push(JSON.stringify({ type: 'system', subtype: 'api_retry', attempt: 3, max_retries: 10, error_status: 429, error: 'rate_limit' }));
    assert.equal(classifyMissingResult(p.state, ''), 'quota');
  });

  it("reports this call's usage on a resumed session, not the session's", () => {
    // As Claude Code 2.1.332 prints a resumed call: usage and model_usage_since_last_result
    // for this invocation; total_cost_usd and modelUsage for the whole session.
    const p = new ClaudeStreamParser();
    p.push(
      result({
        total_cost_usd: 0.0108434,
        usage: { input_tokens: 1000, output_tokens: 300, cache_read_input_tokens: 7, cache_creation_input_tokens: 3 },
        modelUsage: { m: { inputTokens: 1100, outputTokens: 320, cacheReadInputTokens: 17, cacheCreationInputTokens: 8, costUSD: 0.0108434 } },
        model_usage_since_last_result: {
          m: { inputTokens: 1000, outputTokens: 300, cacheReadInputTokens: 7, cacheCreationInputTokens: 3, costUSD: 0.010016399999999998 },
        },
      }),
    );
    const { usage, sessionCostUsd } = callUsage(p.state, { previousSessionCostUsd: undefined });
    assert.deepEqual(usage, { inputTokens: 1000, outputTokens: 300, cacheReadTokens: 7, cacheWriteTokens: 3, costUsd: 0.0100164 });
    assert.equal(sessionCostUsd, 0.0108434);
  });

  it('without per-call figures, takes the growth of the session total since the last call it saw', () => {
    const p = new ClaudeStreamParser();
    p.push(result({ total_cost_usd: 0.03, usage: { input_tokens: 10, output_tokens: 2, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } }));
    assert.equal(callUsage(p.state, { previousSessionCostUsd: 0.01 }).usage.costUsd, 0.02);
    const unknown = callUsage(p.state, { previousSessionCostUsd: undefined });
    assert.equal(unknown.usage.costUsd, 0.03);
    assert.match(unknown.caveat ?? '', /may include the earlier calls/);
    assert.equal(callUsage(p.state, undefined).caveat, undefined);
  });

  it('counts usage from the stream when the call is killed before its result', () => {
    const p = new ClaudeStreamParser();
    const id = { id: 'msg_1', usage: { input_tokens: 100, output_tokens: 1, cache_read_input_tokens: 10, cache_creation_input_tokens: 5 } };
    p.push(JSON.stringify({ type: 'stream_event', event: { type: 'message_start', message: id } }));
    p.push(JSON.stringify({ type: 'assistant', message: { ...id, model: 'm', content: [{ type: 'text', text: 'hi' }] } }));
    p.push(JSON.stringify({ type: 'stream_event', event: { type: 'message_delta', usage: { output_tokens: 40 } } }));
    p.push(JSON.stringify({ type: 'assistant', message: { ...id, model: 'm', content: [{ type: 'tool_use', name: 'Read', input: { file_path: 'a' } }] } }));
    assert.deepEqual(callUsage(p.state, undefined).usage, { inputTokens: 100, outputTokens: 40, cacheReadTokens: 10, cacheWriteTokens: 5, costUsd: 0 });
  });

  it('ignores lines that are not stream-json and survives malformed ones', () => {
    const p = new ClaudeStreamParser();
    for (const line of ['', 'Segmentation fault', '{"type":', '[1,2]', '{"no":"type"}', '{"type":"assistant","message":42}', '{"type":"result"}']) {
      assert.doesNotThrow(() => p.push(line));
    }
    assert.equal(p.state.otherLines, 4);
    assert.equal(p.state.result?.subtype, 'unknown');
  });

  it('keeps bounded state however long the transcript', () => {
    const p = new ClaudeStreamParser();
    const big = 'x'.repeat(10_000);
    for (let i = 0; i < 2000; i++) {
      p.push(JSON.stringify({ type: 'assistant', message: { id: `m${i}`, content: [{ type: 'text', text: big }, { type: 'tool_use', name: 'Bash', input: { command: big } }] } }));
      p.push(JSON.stringify({ type: 'user', message: { content: [{ type: 'tool_result', is_error: true, content: big }] } }));
    }
    assert.ok(JSON.stringify(p.state).length < 50_000);
    assert.equal(p.state.toolCalls, 2000);
  });
});

describe('claude argv', () => {
  const id = '11111111-2222-4333-8444-555555555555';

  it('gives the actor edits and commands, a new session id, the model; never the prompt', () => {
    const args = claudeArgs(
      { role: 'actor', access: 'workspace-write', model: 'sonnet', allowedCommands: ['npm test', 'git diff', 'echo (x)'] },
      { sessionId: id },
    );
    assert.deepEqual(args.slice(0, 7), ['-p', '--input-format', 'stream-json', '--replay-user-messages', '--output-format', 'stream-json', '--verbose']);
    const after = (flag: string) => args[args.indexOf(flag) + 1];
    assert.equal(after('--model'), 'sonnet');
    assert.equal(after('--session-id'), id);
    assert.equal(after('--permission-mode'), 'acceptEdits');
    assert.equal(after('--tools'), 'Read,Edit,Write,Glob,Grep,Bash');
    // Bash only for the listed commands (with arguments); a command that would end the rule is left out.
    assert.equal(after('--allowedTools'), 'Read,Glob,Grep,Bash(npm test),Bash(npm test:*),Bash(git diff),Bash(git diff:*)');
    assert.ok(args.includes('--restricted') && args.includes('--strict-mcp-config'));
    assert.equal(after('--permission-prompts'), 'none');
    assert.ok(!args.includes('--resume') && !args.includes('--disallowedTools'));
    assert.match(after('--append-system-prompt')!, /actor of a Taskloom task/);
  });

  it('keeps the critic and the planner read-only, whatever access they ask for', () => {
    for (const input of [
      { role: 'critic' as const, access: 'read-only' as const },
      { role: 'planner' as const, access: 'read-only' as const },
      { role: 'critic' as const, access: 'workspace-write' as const },
      { role: 'actor' as const, access: 'read-only' as const },
    ]) {
      const args = claudeArgs({ ...input, outputSchema: { type: 'object' } }, { sessionId: id });
      const after = (flag: string) => args[args.indexOf(flag) + 1];
      assert.equal(after('--permission-mode'), 'dontAsk', input.role);
      assert.ok(args.includes('--restricted'), 'repository settings ignored');
      assert.equal(after('--tools'), 'Read,Glob,Grep');
      assert.equal(after('--allowedTools'), 'Read,Glob,Grep');
      assert.equal(after('--disallowedTools'), 'Edit,Write,Bash,NotebookEdit');
      assert.equal(after('--json-schema'), '{"type":"object"}');
    }
  });

  it('resumes with --resume instead of a new session id', () => {
    const args = claudeArgs({ role: 'critic', access: 'read-only', resumeSessionId: 'abc' }, { sessionId: id, maxTurns: 5 });
    assert.equal(args[args.indexOf('--resume') + 1], 'abc');
    assert.ok(!args.includes('--session-id'));
    assert.equal(args[args.indexOf('--max-turns') + 1], '5');
  });

  it('names the configured path when the binary is missing', () => {
    assert.equal(claudeNotFoundMessage(undefined), CLAUDE_NOT_ON_PATH);
    assert.match(CLAUDE_NOT_ON_PATH, /^`claude` is not on PATH — install Claude Code \(npm i -g @anthropic-ai\/claude-code\) or set taskloom\.claude\.path$/);
    assert.match(claudeNotFoundMessage('/opt/x/claude'), /`\/opt\/x\/claude` \(taskloom\.claude\.path\) was not found/);
  });
});

describe('claude stream parser with several result lines', () => {
  it('answers with the first result and adds the usage of the later ones', () => {
    // Claude Code goes on by itself when a background command ends, printing another result.
    const p = new ClaudeStreamParser();
    const m = (n: number, cost: number) => ({ m: { inputTokens: n, outputTokens: 1, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, costUSD: cost } });
    p.push(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'first', total_cost_usd: 0.1, model_usage_since_last_result: m(100, 0.1) }));
    p.push(JSON.stringify({ type: 'result', subtype: 'error_during_execution', is_error: true, total_cost_usd: 0.3, model_usage_since_last_result: m(50, 0.2) }));
    assert.equal(p.state.result?.text, 'first');
    assert.equal(p.state.resultCount, 2);
    const { usage, sessionCostUsd } = callUsage(p.state, undefined);
    assert.deepEqual(usage, { inputTokens: 150, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.3 });
    assert.equal(sessionCostUsd, 0.3);
  });
});

describe('claude stream parser: API errors a retry got past', () => {
  it('forgets an API error once the API answers again', () => {
    const p = new ClaudeStreamParser();
    p.push(JSON.stringify({ type: 'system', subtype: 'api_retry', attempt: 1, max_retries: 10, error_status: 429, error: 'rate_limit' }));
    assert.equal(p.state.lastApiError?.status, 429);
    p.push(JSON.stringify({ type: 'assistant', message: { id: 'm1', content: [{ type: 'text', text: 'working' }] } }));
    assert.equal(p.state.lastApiError, undefined);
    assert.equal(classifyMissingResult(p.state, ''), 'crashed');
  });
});
