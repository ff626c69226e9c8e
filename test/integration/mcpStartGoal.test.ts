import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, connect, runIdIn, scenarioInRepo } from '../helpers/mcpClient';
import { green, task, write } from '../helpers/scriptedRun';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

describe("taskloom mcp: taskloom_startGoal's run options", () => {
  let r: TempRepo;
  let client: Client;
  before(async () => {
    r = makeTempRepo({ files: { 'README.md': 'hello\n', '.gitignore': 'plans/\n' } });
    mkdirSync(join(r.dir, 'plans'));
    client = await connect(r.dir);
  });
  after(async () => {
    await client.close();
    r.cleanup();
  });

  it("starts a run with the agents, gate, limits and budgets it is given, as `taskloom run` would", async () => {
    writeFileSync(join(r.dir, 'plans', 'one.json'), JSON.stringify({ goal: 'one file', tasks: [task('one')] }));
    const script = scenarioInRepo(r, { tasks: { one: { actor: [write({ 'one.txt': '1\n' })], critic: [green] } } });
    const started = await call(client, 'taskloom_startGoal', {
      planFile: 'plans/one.json',
      agent: 'scripted',
      script,
      agents: { critic: { model: 'critic-model-x' } },
      gate: ['true', 'test -f README.md'],
      parallel: 1,
      maxAttempts: 2,
      maxReviews: 1,
      budget: { taskUsd: 5, runTokens: 100_000 },
    });
    assert.equal(started.isError, false, started.text);
    const created = JSON.parse(readFileSync(join(r.dir, '.taskloom', 'runs', runIdIn(started.text), 'events.jsonl'), 'utf8').split('\n')[0]!);
    const { config } = created;
    assert.equal(config.roles.critic.model, 'critic-model-x');
    assert.equal(config.roles.actor.agent, 'scripted');
    assert.deepEqual(config.gateCommands, ['true', 'test -f README.md']);
    assert.equal(config.maxParallel, 1);
    assert.equal(config.maxGateFixAttempts, 2);
    assert.equal(config.maxReviewCycles, 1);
    assert.deepEqual(config.budgets, { taskUsd: 5, runTokens: 100_000 });
  });

  it('refuses options it does not take, naming them, and keeps serving', async () => {
    const negative = await call(client, 'taskloom_startGoal', { goal: 'x', budget: { runUsd: -1 } });
    assert.equal(negative.isError, true);
    assert.match(negative.text, /budget[\s\S]*runUsd/);
    const unknownRole = await call(client, 'taskloom_startGoal', { goal: 'x', agents: { reviewer: { agent: 'claude' } } });
    assert.equal(unknownRole.isError, true);
    assert.match(unknownRole.text, /reviewer/);
    const unknownAgent = await call(client, 'taskloom_startGoal', { goal: 'x', agents: { actor: { agent: 'gpt' } } });
    assert.equal(unknownAgent.isError, true);
    assert.match(unknownAgent.text, /claude[\s\S]*codex/);
    const misspelt = await call(client, 'taskloom_startGoal', { goal: 'x', maxAttempt: 3 });
    assert.equal(misspelt.isError, true, 'a misspelt option is not dropped quietly');
    assert.match(misspelt.text, /maxAttempt/);
    assert.equal((await call(client, 'taskloom_listRuns')).isError, false, 'still serving');
  });
});
