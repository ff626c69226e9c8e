import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { call, connect, runIdIn, scenarioInRepo } from '../helpers/mcpClient';
import { green, task, write } from '../helpers/scriptedRun';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

/** Resolves at the next notification a handler passes on, in the order they arrive. */
function queue<T>() {
  const arrived: T[] = [];
  const waiting: Array<(value: T) => void> = [];
  return {
    push: (value: T) => (waiting.length ? waiting.shift()!(value) : arrived.push(value)),
    next: () => (arrived.length ? Promise.resolve(arrived.shift()!) : new Promise<T>((resolve) => waiting.push(resolve))),
  };
}

describe('taskloom mcp: a run is heard of after the call that started it returned', () => {
  let r: TempRepo;
  let client: Client;
  const updates = queue<string>();
  const logged: string[] = [];
  before(async () => {
    r = makeTempRepo({ files: { 'README.md': 'hello\n', '.gitignore': 'plans/\n' } });
    mkdirSync(join(r.dir, 'plans'));
    client = await connect(r.dir);
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logged.push(String(n.params.data)));
  });
  after(async () => {
    await client.close();
    r.cleanup();
  });

  it("tells a subscribed client each change of the run's trace until it ends, and its milestones as log messages", { timeout: 120_000 }, async () => {
    // Each actor step takes a while, so the run goes on well after approvePlan returned.
    const slowWrite = (files: Record<string, string>) => ({ ...write(files), delayMs: 700 });
    const scenario = { tasks: { a: { actor: [slowWrite({ 'a.txt': 'a\n' })], critic: [green] }, b: { actor: [slowWrite({ 'b.txt': 'b\n' })], critic: [green] } } };
    const script = scenarioInRepo(r, scenario);
    writeFileSync(join(r.dir, 'plans', 'two.json'), JSON.stringify({ goal: 'two files', tasks: [task('a'), task('b', ['a'])] }));
    const started = await call(client, 'taskloom_startGoal', { planFile: 'plans/two.json', script, gate: ['true'] });
    const runId = runIdIn(started.text);
    const trace = `taskloom://runs/${runId}/trace`;
    await client.subscribeResource({ uri: trace });

    const approved = await call(client, 'taskloom_approvePlan', { runId });
    assert.ok(approved.text.includes(`subscribe to the resource ${trace}`), approved.text);
    const seen: string[] = [];
    for (;;) {
      assert.equal(await updates.next(), trace);
      const { contents } = await client.readResource({ uri: trace });
      const text = String((contents[0] as { text: string }).text);
      seen.push(text.split('\n')[0]!);
      if (text.startsWith(`Run ${runId}: completed`)) break;
    }
    assert.ok(seen.length >= 2, `one update a change, not one at the end: ${JSON.stringify(seen)}`);
    assert.ok(seen.slice(0, -1).every((line) => !line.includes('completed')), JSON.stringify(seen));
    assert.ok(logged.includes(`Run ${runId}: task a merged.`), JSON.stringify(logged));
    assert.ok(logged.some((m) => m.startsWith(`Run ${runId} ended completed`) && m.includes('taskloom_runState')), JSON.stringify(logged));

    await client.unsubscribeResource({ uri: trace });
    await assert.rejects(client.subscribeResource({ uri: 'taskloom://runs/no-such-run/trace' }), /no-such-run/);
    await assert.rejects(client.subscribeResource({ uri: 'file:///etc/passwd' }), /not a Taskloom resource/);
    assert.equal((await call(client, 'taskloom_listRuns')).isError, false, 'still serving');
  });
});
