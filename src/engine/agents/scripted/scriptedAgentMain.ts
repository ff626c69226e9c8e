// The scripted agent as a real process (bundled to dist/scripted-agent.js), so hangs,
// crashes and the watchdog's kills are real. Reads one request on stdin, prints JSON lines.
import { callNumberWords } from '../../text/callWords';
import type { ActivityLine, AgentRequest, HeartbeatLine, ResultLine } from './agentProtocol';

const CRASH_EXIT_CODE = 3;

const print = (line: ActivityLine | HeartbeatLine | ResultLine) => process.stdout.write(`${JSON.stringify(line)}\n`);

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function main(): Promise<void> {
  let json: unknown;
  try {
    json = JSON.parse(await readStdin());
  } catch (err) {
    return fail(`scripted agent: the request on stdin is not JSON: ${(err as Error).message}`);
  }
  announce(json);
  // Loaded only now (zod takes a while to load): the first activity line is already out, as
  // a real agent's would be, so a watchdog counts from a live process.
  const { agentRequestSchema } = await import('./agentProtocol');
  const { performScriptedCall } = await import('./scriptedAgent');
  const request = agentRequestSchema.safeParse(json);
  if (!request.success) return fail(`scripted agent: bad request: ${request.error.message}`);

  const outcome = await performScriptedCall(request.data, process.cwd(), print);
  switch (outcome.kind) {
    case 'result':
      print(outcome.line);
      return;
    case 'hang':
      // Alive and silent: only the watchdog (or a cancel) ends this.
      setInterval(() => {}, 1 << 30);
      return;
    case 'crash':
      // Stdout on a pipe is synchronous on POSIX, so the half line is out before the exit.
      process.stdout.write('{"type":"activity","message":"about to');
      process.exit(CRASH_EXIT_CODE);
  }
}

function announce(json: unknown): void {
  const { role, taskId, attempt, purpose, candidate } = (json ?? {}) as Partial<AgentRequest>;
  const subject = typeof taskId === 'string' ? `task ${taskId}` : 'the run';
  // Numbered by what the call counts ("review 1" for a critic), as the transcript heads it.
  const which = role && attempt !== undefined ? callNumberWords({ role, attempt, ...(purpose ? { purpose } : {}), ...(candidate !== undefined ? { candidate } : {}) }, taskId === null) : `attempt ${attempt}`;
  print({ type: 'activity', kind: 'status', message: `scripted ${role} started on ${subject}, ${which} (pid ${process.pid})` });
}

function fail(text: string): void {
  print({
    type: 'result',
    status: 'agent_error',
    text,
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    costUsd: 0,
    sessionId: 'scripted-invalid-request',
  });
  process.exitCode = 1;
}

main().catch((err: unknown) => {
  process.stderr.write(`scripted agent failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
