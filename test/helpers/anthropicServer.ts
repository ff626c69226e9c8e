import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback';

/**
 * A scripted model for the real `claude` CLI: an HTTP server on 127.0.0.1 speaking enough of
 * the Anthropic Messages API (streaming SSE) for Claude Code to run against it, with no
 * network. Each test registers a scenario under a marker string that it puts in its prompt;
 * the server routes every conversation request to the scenario whose marker appears in the
 * conversation, so tests can share one server and run concurrently.
 */

/** Usage in the API's own field names, as reported in message_start / message_delta. */
export interface ApiUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

export const DEFAULT_USAGE: ApiUsage = Object.freeze({
  input_tokens: 100,
  output_tokens: 20,
  cache_read_input_tokens: 10,
  cache_creation_input_tokens: 5,
});

export type ScriptedReply =
  | { type: 'text'; text: string; usage?: Partial<ApiUsage>; headers?: Record<string, string> }
  /** A tool call, e.g. `Write` with `{ file_path, content }`; optional text before it. */
  | {
      type: 'tool_use';
      name: string;
      input: Record<string, unknown>;
      text?: string;
      id?: string;
      usage?: Partial<ApiUsage>;
      headers?: Record<string, string>;
    }
  | { type: 'http_error'; status: number; errorType?: string; message?: string; headers?: Record<string, string> }
  /** Starts the stream (message_start and a first text delta), then never sends another byte. */
  | { type: 'hang' }
  /** Starts the stream, then destroys the socket mid-message. */
  | { type: 'drop' };

/** The parts of a Messages API request body the scripts look at (the rest stays in `raw`). */
export interface MessagesRequest {
  model: string;
  system: string;
  tools: string[];
  messages: Array<{ role: string; content: unknown }>;
  stream: boolean;
  raw: Record<string, unknown>;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed for POST /v1/messages; undefined for other requests. */
  request?: MessagesRequest;
  /** The scenario that answered it, if any. */
  marker?: string;
  reply?: ScriptedReply;
  /** The usage the server reported for this response (what the CLI should add up). */
  usage?: ApiUsage;
}

export type Script = (request: MessagesRequest, index: number) => ScriptedReply;

export interface Scenario {
  readonly marker: string;
  /** The conversation requests routed to this scenario, in order. */
  readonly requests: RecordedRequest[];
  /** Sum of the usage reported to this scenario's requests from `from` on. */
  usageSince(from: number): ApiUsage;
}

export interface AnthropicServer {
  readonly url: string;
  readonly port: number;
  /** Every request the server received, side requests included. */
  readonly requests: RecordedRequest[];
  /** Paths the server does not know; answered 404 and kept here so tests can see them. */
  readonly unknownPaths: string[];
  /** Registers a scenario for conversations whose messages contain `marker`. */
  scenario(marker: string, script: Script): Scenario;
  close(): Promise<void>;
}

export async function startAnthropicServer(options: { log?: (line: string) => void } = {}): Promise<AnthropicServer> {
  const requests: RecordedRequest[] = [];
  const unknownPaths: string[] = [];
  const scenarios = new Map<string, { script: Script; requests: RecordedRequest[] }>();
  const log = options.log ?? (() => {});

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    const path = req.url ?? '/';
    const record: RecordedRequest = { method: req.method ?? 'GET', path, headers: req.headers };
    requests.push(record);

    const pathname = path.split('?')[0];
    if (req.method === 'POST' && pathname === '/v1/messages/count_tokens') {
      return json(res, 200, { input_tokens: 100 });
    }
    if (req.method === 'POST' && pathname === '/v1/messages') {
      let raw: Record<string, unknown>;
      try {
        raw = JSON.parse(body) as Record<string, unknown>;
      } catch {
        return json(res, 400, apiError('invalid_request_error', 'body is not JSON'));
      }
      const request = viewRequest(raw);
      record.request = request;
      const match = findScenario(scenarios, request);
      if (!match) {
        // A request no test scripted (a side request such as a title, or a stray call): answer
        // it harmlessly so nothing waits on it, and leave it recorded for the tests to inspect.
        log(`anthropicServer: unrouted ${request.stream ? 'streaming' : 'plain'} request (tools: ${request.tools.length})`);
        const reply: ScriptedReply = { type: 'text', text: 'OK' };
        record.reply = reply;
        record.usage = usageOf(reply);
        return request.stream ? streamReply(res, request, reply, record.usage) : plainReply(res, request, reply, record.usage);
      }
      record.marker = match.marker;
      const index = match.entry.requests.length;
      match.entry.requests.push(record);
      let reply: ScriptedReply;
      try {
        reply = match.entry.script(request, index);
      } catch (err) {
        reply = { type: 'http_error', status: 500, message: `script failed: ${(err as Error).message}` };
      }
      record.reply = reply;
      if (reply.type === 'http_error') {
        const errorType = reply.errorType ?? defaultErrorType(reply.status);
        return json(res, reply.status, apiError(errorType, reply.message ?? errorType), reply.headers);
      }
      if (reply.type === 'text' || reply.type === 'tool_use') record.usage = usageOf(reply);
      return request.stream ? streamReply(res, request, reply, record.usage) : plainReply(res, request, reply, record.usage);
    }
    if (req.method === 'GET' || req.method === 'HEAD') {
      // Connectivity checks (HEAD /api/hello) and other lookups: an empty success.
      return json(res, 200, {});
    }
    unknownPaths.push(`${req.method} ${path}`);
    log(`anthropicServer: unknown path ${req.method} ${path}`);
    return json(res, 404, apiError('not_found_error', `no route for ${req.method} ${pathname}`));
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log(`anthropicServer: handler failed: ${(err as Error).message}`);
      if (!res.headersSent) json(res, 500, apiError('api_error', 'scripted server failed'));
      else res.destroy();
    });
  });
  const { port, close } = await listenOnLoopback(server);

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    unknownPaths,
    scenario(marker, script) {
      if (scenarios.has(marker)) throw new Error(`scenario ${marker} is already registered`);
      const entry = { script, requests: [] as RecordedRequest[] };
      scenarios.set(marker, entry);
      return {
        marker,
        requests: entry.requests,
        usageSince: (from) => sumUsage(entry.requests.slice(from).map((r) => r.usage)),
      };
    },
    close,
  };
}

function findScenario(
  scenarios: Map<string, { script: Script; requests: RecordedRequest[] }>,
  request: MessagesRequest,
): { marker: string; entry: { script: Script; requests: RecordedRequest[] } } | undefined {
  // Side requests (titles, summaries) carry no tools; only the agent's own turns are scripted.
  if (request.tools.length === 0) return undefined;
  const text = JSON.stringify(request.messages);
  for (const [marker, entry] of scenarios) if (text.includes(marker)) return { marker, entry };
  return undefined;
}

function viewRequest(raw: Record<string, unknown>): MessagesRequest {
  const system = raw.system;
  const systemText = Array.isArray(system)
    ? system.map((block) => (block as { text?: string }).text ?? '').join('\n')
    : typeof system === 'string'
      ? system
      : '';
  const tools = Array.isArray(raw.tools) ? raw.tools.map((t) => String((t as { name?: unknown }).name)) : [];
  const messages = Array.isArray(raw.messages) ? (raw.messages as MessagesRequest['messages']) : [];
  return { model: String(raw.model ?? ''), system: systemText, tools, messages, stream: raw.stream === true, raw };
}

function usageOf(reply: { usage?: Partial<ApiUsage> }): ApiUsage {
  return { ...DEFAULT_USAGE, ...reply.usage };
}

function sumUsage(list: Array<ApiUsage | undefined>): ApiUsage {
  const total = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  for (const u of list) {
    if (!u) continue;
    total.input_tokens += u.input_tokens;
    total.output_tokens += u.output_tokens;
    total.cache_read_input_tokens += u.cache_read_input_tokens;
    total.cache_creation_input_tokens += u.cache_creation_input_tokens;
  }
  return total;
}

let messageCounter = 0;

function contentBlocks(reply: ScriptedReply): Array<Record<string, unknown>> {
  if (reply.type === 'text') return [{ type: 'text', text: reply.text }];
  if (reply.type === 'tool_use') {
    const blocks: Array<Record<string, unknown>> = [];
    if (reply.text) blocks.push({ type: 'text', text: reply.text });
    blocks.push({ type: 'tool_use', id: reply.id ?? `toolu_scripted_${++messageCounter}`, name: reply.name, input: reply.input });
    return blocks;
  }
  return [{ type: 'text', text: 'Working on it' }];
}

function streamReply(res: ServerResponse, request: MessagesRequest, reply: ScriptedReply, usage: ApiUsage | undefined): void {
  const extraHeaders = reply.type === 'text' || reply.type === 'tool_use' ? (reply.headers ?? {}) : {};
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'request-id': `req_scripted_${messageCounter + 1}`,
    ...extraHeaders,
  });
  const send = (event: string, data: Record<string, unknown>) => res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  const u = usage ?? DEFAULT_USAGE;
  send('message_start', {
    message: {
      id: `msg_scripted_${++messageCounter}`,
      type: 'message',
      role: 'assistant',
      model: request.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      // As the real API does: input and cache figures up front, output counted at the end.
      usage: { ...u, output_tokens: 1 },
    },
  });
  const blocks = contentBlocks(reply);
  if (reply.type === 'hang' || reply.type === 'drop') {
    send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Working on it' } });
    if (reply.type === 'drop') {
      // Let the bytes above reach the client first, then cut the connection mid-message.
      setTimeout(() => res.socket?.destroy(), 50);
    }
    return; // hang: the response stays open until the client or close() ends it
  }
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
    } else {
      send('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
    }
    send('content_block_stop', { index });
  });
  const stopReason = reply.type === 'tool_use' ? 'tool_use' : 'end_turn';
  send('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: u.output_tokens } });
  send('message_stop', {});
  res.end();
}

function plainReply(res: ServerResponse, request: MessagesRequest, reply: ScriptedReply, usage: ApiUsage | undefined): void {
  if (reply.type === 'hang') return;
  if (reply.type === 'drop') {
    res.socket?.destroy();
    return;
  }
  json(res, 200, {
    id: `msg_scripted_${++messageCounter}`,
    type: 'message',
    role: 'assistant',
    model: request.model,
    content: contentBlocks(reply),
    stop_reason: reply.type === 'tool_use' ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: usage ?? DEFAULT_USAGE,
  });
}

function defaultErrorType(status: number): string {
  if (status === 429) return 'rate_limit_error';
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 529) return 'overloaded_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

function apiError(type: string, message: string) {
  return { type: 'error', error: { type, message } };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The text of the last user message that is not only tool results (the latest prompt). */
export function lastUserText(request: MessagesRequest): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i];
    if (message?.role !== 'user') continue;
    const text = textOf(message.content);
    if (text !== '') return text;
  }
  return '';
}

/** Whether the last message carries a tool_result (the CLI ran the tool we asked for). */
export function endsWithToolResult(request: MessagesRequest): boolean {
  const last = request.messages[request.messages.length - 1];
  return Array.isArray(last?.content) && last.content.some((block) => (block as { type?: string }).type === 'tool_result');
}

export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((block) => (block as { type?: string }).type === 'text')
    .map((block) => (block as { text: string }).text)
    .join('\n');
}
