import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { RunEvent } from '../../src/engine/domain/events';
import { TRANSCRIPT_LIMITS } from '../../src/engine/session/transcriptRecorder';
import { ApprovePlanRequest, GetRunRequest, StartGoalRequest, TranscriptRequest } from '../../src/protocol/engineProtocol';
import type { RunSettings } from '../../src/protocol/runSettings';
import { writeInputs } from '../helpers/cli';
import { EngineServerProcess } from '../helpers/engineServer';
import { scriptedSettings } from '../helpers/scriptedSettings';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

/**
 * A slow scripted step that prints far more than a transcript keeps, through the bundled engine
 * server: its lines reach the editor as agent_transcript events while the step still runs, the
 * log keeps them bounded and redacted, and a new server (a window reload) reads them back.
 */

const SECRET = 'transcript-secret-value-9f8e7d';
const SAID = 400;
const say = Array.from({ length: SAID }, (_, i) =>
  i === 3 ? `using key sk-ant-api03-abcdefghijklmnopqrstuvwxyz and ${SECRET}` : `step ${i + 1} of the work`,
);

const repos: TempRepo[] = [];
const servers: EngineServerProcess[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  repos.forEach((r) => r.cleanup());
});

async function startServer(): Promise<EngineServerProcess> {
  // The secret is in the environment under a secret-looking name, as an API key would be.
  const server = await EngineServerProcess.start({ TASKLOOM_TEST_API_KEY: SECRET });
  servers.push(server);
  return server;
}

function settings(): RunSettings {
  const scenario = {
    tasks: {
      slow: {
        actor: [{ delayMs: 3000, say, write: { 'slow.txt': 'done\n' } }],
        critic: [{ verdict: { decision: 'green', summary: 'fine', findings: [] } }],
      },
    },
  };
  return scriptedSettings(scenario, { maxParallel: 1, maxAttempts: 1, maxReviewCycles: 1 });
}

type Transcript = Extract<RunEvent, { type: 'agent_transcript' }>;
const isTranscript = (e: RunEvent): e is Transcript => e.type === 'agent_transcript';

describe('agent transcripts (engine server, scripted agent)', () => {
  it('streams a slow step’s lines while it runs, keeps them bounded and redacted, and reads them back after a restart', async () => {
    const r = makeTempRepo();
    repos.push(r);
    const server = await startServer();
    const plan = { goal: 'one slow task', tasks: [{ id: 'slow', title: 'A slow task', description: 'take a while', acceptance: [], dependsOn: [] }] };
    const { 'plan.json': planFile } = writeInputs({ 'plan.json': plan });
    const { runId } = await server.request(StartGoalRequest.type, { folder: r.dir, planFile: planFile!, settings: settings() });
    await server.request(ApprovePlanRequest.type, { folder: r.dir, runId, by: 'autopilot' });

    // While the actor still works (no runner_call yet), its lines are already in the editor.
    const live = await server.waitForEvents(runId, (events) => events.filter(isTranscript).flatMap((e) => e.lines).some((l) => l.text === 'step 20 of the work'));
    assert.ok(!live.some((e) => e.type === 'runner_call'), 'the step is still running');
    assert.equal(live.filter((e) => e.type === 'task_transition').at(-1)?.to, 'BUILDING');

    const end = await server.waitForEnd(runId);
    assert.equal(end.type === 'run_finished' && end.status, 'completed');
    const events = server.eventsOf(runId);
    const actorCall = events.find((e): e is Extract<RunEvent, { type: 'runner_call' }> => e.type === 'runner_call' && e.role === 'actor')!;
    const callSeq = actorCall.transcript!;
    assert.ok(callSeq, 'the runner_call names its transcript');
    const batches = events.filter(isTranscript).filter((e) => e.seq === callSeq || e.call === callSeq);
    const lines = batches.flatMap((e) => e.lines);
    const texts = lines.map((l) => l.text);

    // Bounded: the head, a sample now and then, the tail; what was left out is counted.
    assert.ok(texts.includes('step 1 of the work'));
    assert.ok(texts.includes(`step ${SAID} of the work`), 'the last line is kept');
    const kept = lines.reduce((sum, l) => sum + (l.n ?? 1), 0);
    const omitted = batches.reduce((sum, e) => sum + (e.omitted ?? 0), 0);
    assert.ok(omitted > 0, 'lines past the cap were left out');
    assert.ok(lines.length <= TRANSCRIPT_LIMITS.headLines + TRANSCRIPT_LIMITS.tailLines + 5, `bounded (${lines.length} lines)`);
    assert.ok(batches.length <= 10, `coalesced into few events (${batches.length} for ${SAID}+ lines in 3 s)`);
    assert.ok(kept + omitted >= SAID, 'every line is kept or counted');

    // Redacted like every event: in what the editor got and in the log on disk.
    const secretLine = texts.find((t) => t.startsWith('using key'));
    assert.equal(secretLine, 'using key [REDACTED] and [REDACTED]');
    const log = readFileSync(join(r.dir, '.taskloom', 'runs', runId, 'events.jsonl'), 'utf8');
    assert.ok(!log.includes(SECRET) && !log.includes('sk-ant-api03'), 'no secret in the log');

    // A new server (as after a window reload) projects the record and reads the lines back from the log.
    await server.stop();
    const reopened = await startServer();
    const state = await reopened.request(GetRunRequest.type, { folder: r.dir, runId });
    const record = state.tasks.slow!.transcripts.find((t) => t.seq === callSeq)!;
    assert.equal(record.role, 'actor');
    assert.equal(record.ended, 'ok');
    assert.equal(record.lines, lines.length);
    assert.equal(record.omitted, omitted);
    assert.equal(record.last?.text, 'wrote slow.txt', 'the file the step wrote comes last');
    const critic = state.tasks.slow!.transcripts.find((t) => t.role === 'critic');
    assert.ok(critic, 'the critic’s call has its own transcript');
    // Seqs that are not transcript batches (the run's first event, one past the end) are left out.
    const read = await reopened.request(TranscriptRequest.type, { folder: r.dir, runId, seqs: [1, ...record.batches, 999_999] });
    assert.deepEqual(read.batches.map((b) => b.seq), record.batches);
    assert.ok(read.batches.every((b) => b.call === callSeq));
    assert.deepEqual(
      read.batches.flatMap((b) => b.lines),
      lines,
      'the same lines as were streamed',
    );
  });
});
