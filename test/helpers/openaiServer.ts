import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback';

/**
 * A scripted model on loopback that speaks the OpenAI Responses API the way the real `codex`
 * CLI uses it: `POST /v1/responses` with `stream: true`, answered with server-sent events
 * (`response.created`, `response.output_item.added` / `.done`, `response.output_text.delta`,
 * `response.completed` with usage). The test queues one reply per request; every request is
 * recorded. Point codex at it with `codexProviderOverrides(server)`.
 *
 * What codex-cli 0.171 does, seen with this server:
 * - One `POST {base_url}/responses` per model turn step, `Authorization: Bearer $<env_key>`;
 *   no other endpoint is called. Body: model, stream, input (developer instructions, an
 *   `<environment_context>` user message, the conversation, the prompt as the last user
 *   message; then `function_call` / `function_call_output` pairs), tools (`exec_command`,
 *   `write_stdin`, …; no separate apply_patch tool), `text.format` = the --output-schema as
 *   `json_schema` (strict), `store: false`, `prompt_cache_key` = the thread id. Headers carry
 *   `session-id` / `thread-id` and `x-codex-turn-metadata` (JSON, incl. `sandbox_mode`).
 * - It needs `response.output_item.done` items and `response.completed` (with usage, which it
 *   sums over the turn); deltas are optional. A `function_call` to `exec_command` with
 *   `{"cmd": "…"}` runs a shell command in the sandbox; `apply_patch <<'EOF' … EOF` as the cmd
 *   is intercepted and applied as an edit (a `file_change` item in --json).
 * - Errors: 429 → "exceeded retry limit, last status: 429 Too Many Requests"; a 429 body of type
 *   `usage_limit_reached` → "You've hit your usage limit…"; 401 → "unexpected status 401
 *   Unauthorized: …"; `response.failed` → "rate limit exceeded: …" / "Quota exceeded…" / "stream
 *   disconnected before completion: …" by error code; each as an `error` and a `turn.failed`
 *   event, exit code 1. With the default retries (a 500 or a dropped stream) codex retried
 *   30 times over ~26 s, printing "Reconnecting... n/5" `error` events: hence no retries here.
 */

export interface ResponsesUsage {
  /** All input tokens of the request, cached ones included (as the API reports them). */
  input: number;
  cached?: number;
  /** All output tokens, reasoning included. */
  output: number;
  reasoning?: number;
}

export type OutputItem = Record<string, unknown> & { type: string };

export type Reply =
  /** A normal streamed response with these output items. */
  | { kind: 'output'; items: OutputItem[]; usage?: ResponsesUsage; delayMs?: number }
  /** An HTTP error status with an OpenAI-style error body. */
  | { kind: 'http_error'; status: number; body?: unknown; headers?: Record<string, string> }
  /** The stream starts and ends with `response.failed`. */
  | { kind: 'failed'; code: string; message: string }
  /** The stream starts (headers and `response.created`) and then nothing more, until the server closes. */
  | { kind: 'hang' }
  /** The connection is destroyed without an HTTP response. */
  | { kind: 'drop' }
  /** Raw SSE events, written as given. */
  | { kind: 'events'; events: Array<Record<string, unknown> & { type: string }> };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when it was not JSON). */
  body: any;
  /** Text of the last user message in `input`. */
  lastUserText: string;
  /** `function_call_output` items of `input`, in order. */
  toolOutputs: Array<{ call_id: string; output: string }>;
  /** The reply given (undefined: the script had none left). */
  reply?: Reply;
}

export type ReplyFn = (request: RecordedRequest, index: number) => Reply | undefined;

export interface OpenAIServer {
  /** e.g. http://127.0.0.1:41234/v1 */
  baseUrl: string;
  port: number;
  requests: RecordedRequest[];
  /** Requests to `/v1/responses` only. */
  responseRequests(): RecordedRequest[];
  /** Replace the script: replies are given in order, one per `/v1/responses` request. */
  script(replies: Array<Reply | ReplyFn>): void;
  /** Requests that found no scripted reply (answered with HTTP 500). */
  unscripted: RecordedRequest[];
  close(): Promise<void>;
}

export async function startOpenAIServer(): Promise<OpenAIServer> {
  const requests: RecordedRequest[] = [];
  const unscripted: RecordedRequest[] = [];
  let queue: Array<Reply | ReplyFn> = [];
  let responseIndex = 0;
  const hanging = new Set<ServerResponse>();
  let nextId = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const raw = await readBody(req);
    const record = recordOf(req, raw);
    requests.push(record);
    if (req.method !== 'POST' || !/\/responses$/.test(record.path)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${record.path}`, type: 'not_found' } }));
      return;
    }
    const index = responseIndex++;
    const next = queue.shift();
    const reply = typeof next === 'function' ? next(record, index) : next;
    if (!reply) {
      unscripted.push(record);
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'the test scripted no reply for this request', type: 'server_error' } }));
      return;
    }
    record.reply = reply;
    const responseId = `resp_${++nextId}`;
    switch (reply.kind) {
      case 'http_error':
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        res.end(JSON.stringify(reply.body ?? { error: { message: `status ${reply.status}`, type: 'error' } }));
        return;
      case 'drop':
        req.socket.destroy();
        return;
      case 'hang':
        startStream(res);
        sse(res, { type: 'response.created', response: { id: responseId, status: 'in_progress' } });
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      case 'failed':
        startStream(res);
        sse(res, { type: 'response.created', response: { id: responseId, status: 'in_progress' } });
        sse(res, {
          type: 'response.failed',
          response: { id: responseId, status: 'failed', error: { code: reply.code, message: reply.message } },
        });
        res.end();
        return;
      case 'events':
        startStream(res);
        for (const event of reply.events) sse(res, event);
        res.end();
        return;
      case 'output':
        startStream(res);
        if (reply.delayMs) await sleep(reply.delayMs);
        writeOutput(res, responseId, reply.items, reply.usage);
        res.end();
        return;
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    });
  });
  const listening = await listenOnLoopback(server);
  const port = listening.port;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    unscripted,
    responseRequests: () => requests.filter((r) => /\/responses$/.test(r.path)),
    script(replies) {
      queue = [...replies];
    },
    async close() {
      for (const res of hanging) res.destroy();
      await listening.close();
    },
  };
}

/** The variable holding the key codex sends the scripted server (any value does). */
const TEST_KEY_VAR = 'TASKLOOM_TEST_OPENAI_KEY';

/** Environment for the real codex against the scripted server: its state in `codexHome`, the key it sends. */
export function codexTestEnv(codexHome: string): NodeJS.ProcessEnv {
  return { CODEX_HOME: codexHome, [TEST_KEY_VAR]: 'sk-test-dummy' };
}

/** `taskloom run` flags that make codex use this server (codexProviderOverrides, each as `--codex-config`). */
export function codexConfigFlags(server: { baseUrl: string }): string[] {
  return codexProviderOverrides(server).flatMap((override) => ['--codex-config', override]);
}

/** `-c` overrides that make codex use this server as its model provider (no retries, so failures are fast). */
export function codexProviderOverrides(server: { baseUrl: string }, envKey = TEST_KEY_VAR): string[] {
  const p = 'model_providers.taskloom_test';
  return [
    'model_provider="taskloom_test"',
    `${p}.name="Taskloom test model"`,
    `${p}.base_url="${server.baseUrl}"`,
    `${p}.env_key="${envKey}"`,
    `${p}.wire_api="responses"`,
    `${p}.request_max_retries=0`,
    `${p}.stream_max_retries=0`,
  ];
}

// ---------------------------------------------------------------------------------------------
// Reply builders

let itemCounter = 0;

export function message(text: string, usage?: ResponsesUsage): Reply {
  return { kind: 'output', items: [messageItem(text)], usage: usage ?? { input: 100, output: 10 } };
}

export function messageItem(text: string): OutputItem {
  return {
    type: 'message',
    id: `msg_${++itemCounter}`,
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text, annotations: [] }],
  };
}

/** A call of codex's `exec_command` tool (its shell); `apply_patch <<'EOF' … EOF` in `cmd` is its edit tool. */
export function execCommandItem(cmd: string, extra: Record<string, unknown> = {}): OutputItem {
  const n = ++itemCounter;
  return {
    type: 'function_call',
    id: `fc_${n}`,
    call_id: `call_${n}`,
    name: 'exec_command',
    arguments: JSON.stringify({ cmd, ...extra }),
    status: 'completed',
  };
}

export function execCommand(cmd: string, usage?: ResponsesUsage, extra?: Record<string, unknown>): Reply {
  return { kind: 'output', items: [execCommandItem(cmd, extra)], usage: usage ?? { input: 100, output: 10 } };
}

/** The command by which the model adds a file: codex's apply_patch with an Add File patch. */
export function addFileCommand(path: string, content: string): string {
  const lines = content.replace(/\n$/, '').split('\n').map((l) => `+${l}`);
  const patch = ['*** Begin Patch', `*** Add File: ${path}`, ...lines, '*** End Patch'].join('\n');
  return `apply_patch <<'PATCH'\n${patch}\nPATCH`;
}

export function reasoningItem(summary: string): OutputItem {
  return {
    type: 'reasoning',
    id: `rs_${++itemCounter}`,
    summary: [{ type: 'summary_text', text: summary }],
  };
}

// ---------------------------------------------------------------------------------------------

function startStream(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
}

function sse(res: ServerResponse, event: Record<string, unknown> & { type: string }): void {
  res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
}

function writeOutput(res: ServerResponse, responseId: string, items: OutputItem[], usage: ResponsesUsage | undefined): void {
  sse(res, { type: 'response.created', response: { id: responseId, status: 'in_progress' } });
  items.forEach((item, outputIndex) => {
    sse(res, { type: 'response.output_item.added', output_index: outputIndex, item });
    if (item.type === 'message') {
      const text = ((item.content as Array<{ text?: string }>)[0]?.text ?? '') as string;
      // Two deltas, so streaming is exercised; the done item carries the whole text.
      const half = Math.ceil(text.length / 2);
      for (const delta of [text.slice(0, half), text.slice(half)].filter(Boolean)) {
        sse(res, { type: 'response.output_text.delta', item_id: item.id, output_index: outputIndex, content_index: 0, delta });
      }
    }
    sse(res, { type: 'response.output_item.done', output_index: outputIndex, item });
  });
  const u = usage ?? { input: 0, output: 0 };
  sse(res, {
    type: 'response.completed',
    response: {
      id: responseId,
      status: 'completed',
      usage: {
        input_tokens: u.input,
        input_tokens_details: { cached_tokens: u.cached ?? 0 },
        output_tokens: u.output,
        output_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
        total_tokens: u.input + u.output,
      },
    },
  });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function recordOf(req: IncomingMessage, raw: string): RecordedRequest {
  let body: any;
  try {
    body = raw === '' ? undefined : JSON.parse(raw);
  } catch {
    body = undefined;
  }
  const input: any[] = Array.isArray(body?.input) ? body.input : [];
  const userMessages = input.filter((i) => i?.type === 'message' && i.role === 'user');
  const last = userMessages[userMessages.length - 1];
  const lastUserText = Array.isArray(last?.content)
    ? last.content.map((c: { text?: string }) => c.text ?? '').join('')
    : typeof last?.content === 'string'
      ? last.content
      : '';
  const toolOutputs = input
    .filter((i) => i?.type === 'function_call_output')
    .map((i) => ({ call_id: String(i.call_id), output: typeof i.output === 'string' ? i.output : JSON.stringify(i.output) }));
  return {
    method: req.method ?? '',
    path: (req.url ?? '').split('?')[0] ?? '',
    headers: req.headers,
    body,
    lastUserText,
    toolOutputs,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
