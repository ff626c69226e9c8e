import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { RunStats } from '../../src/engine/report/runStats';
import { runStats } from '../../src/engine/usecases/runStats';
import { LOG_FIXTURES_DIR, type FixtureMeta } from '../fixtures/logs/fixtureCases';
import { RunStatsRequest } from '../../src/protocol/engineProtocol';
import { runCli } from '../helpers/cli';
import { EngineServerProcess } from '../helpers/engineServer';
import { runScripted, task, write } from '../helpers/scriptedRun';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

const repos: TempRepo[] = [];
const folders: string[] = [];
after(() => {
  repos.forEach((r) => r.cleanup());
  folders.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

const GATE = '! grep -rqs BROKEN --include=*.txt .';
const verdict = (decision: 'green' | 'changes_required', findings: object[] = []) => ({ verdict: { decision, summary: decision, findings }, delayMs: 0 });
const finding = (category: string, message: string) => ({ severity: 'major', category, message });
const spend = (step: object) => ({ ...step, costUsd: 0.02 });

/**
 * Run 1, every role the scripted agent (critic calls $0.01, actor calls $0.02, 120 tokens each):
 * retry     the gate fails its first attempt (BROKEN), the second passes         → merged, not first-pass
 * sendback  the critic asks once for changes (requirements), then approves       → merged
 * stubborn  the critic asks twice (correctness); --max-reviews 2: it needs you   → accepted, merged
 * broken    its actor fails; a person retries it, and it passes                  → merged, first-pass
 * dropped   its actor fails; a person skips it                                   → skipped, never gated
 */
const RUN_1 = {
  plan: { goal: 'stats one', tasks: ['retry', 'sendback', 'stubborn', 'broken', 'dropped'].map((id) => task(id)) },
  scenario: {
    defaults: { costUsd: 0.01, usage: { inputTokens: 100, outputTokens: 20 } },
    tasks: {
      retry: { actor: [spend(write({ 'retry.txt': 'BROKEN\n' })), spend(write({ 'retry.txt': 'ok\n' }))] },
      sendback: { actor: [spend(write({ 'sendback.txt': '1\n' })), spend(write({ 'sendback.txt': '2\n' }))], critic: [verdict('changes_required', [finding('requirements', 'misses the point')]), verdict('green')] },
      stubborn: { actor: [spend(write({ 'stubborn.txt': '1\n' })), spend(write({ 'stubborn.txt': '2\n' }))], critic: [verdict('changes_required', [finding('correctness', 'off by one')])] },
      broken: { actor: [spend({ fail: 'cannot', delayMs: 0 }), spend(write({ 'broken.txt': 'ok\n' }))] },
      dropped: { actor: [spend({ fail: 'no', delayMs: 0 })] },
    },
    fallback: { critic: [verdict('green')] },
  },
};

describe('taskloom stats', () => {
  it('prints, for scripted runs of two agents, the figures worked out by hand; the editor gets the same', async () => {
    const r = makeTempRepo();
    repos.push(r);
    assert.equal(runScripted(r.dir, RUN_1.plan, RUN_1.scenario, '--gate', GATE, '--max-reviews', '2').code, 1);
    for (const decision of [['retry', 'broken'], ['accept', 'stubborn'], ['skip', 'dropped']]) {
      const decided = runCli([...decision, '--cwd', r.dir]);
      assert.ok(decided.code === 0 || decided.code === 1, decided.stdout + decided.stderr);
    }
    // Run 2: a second agent, a command, is the actor (no cost); the scripted critic approves ($0.01).
    const agentDir = mkdtempSync(join(tmpdir(), 'taskloom-stats-agent-'));
    folders.push(agentDir);
    writeFileSync(join(agentDir, 'agent.js'), "require('node:fs').writeFileSync('other.txt', 'ok\\n');\nconsole.log('wrote other.txt');\n");
    const second = runScripted(r.dir, { goal: 'stats two', tasks: [task('other')] }, RUN_1.scenario, '--gate', GATE,
      '--actor-agent', 'command', '--command', JSON.stringify([process.execPath, join(agentDir, 'agent.js')]), '--actor-model', 'cmd-model',
      // The agent's script lives outside the repository, where a confined agent reads nothing unless told.
      '--read-path', agentDir);
    assert.equal(second.code, 0, second.stdout + second.stderr);

    const result = runCli(['stats', '--json', '--cwd', r.dir]);
    assert.equal(result.code, 0, result.stderr);
    const s = JSON.parse(result.stdout) as RunStats & { since: string | null };
    assert.equal(s.runs, 2);
    assert.deepEqual(s.tasks, { planned: 6, merged: 5, skipped: 1, needsYou: 0 });
    // Gated: retry (failed first), sendback, stubborn, broken, other: 4 of 5 passed first time.
    assert.equal(s.firstPassGateRate, 0.8);
    assert.equal(s.gatedTasks, 5);
    // Reviews: retry 1, sendback 2 (1 back), stubborn 2 (2 back), broken 1, other 1: 3 of 7.
    assert.equal(s.reviews, 7);
    assert.equal(s.sendBackRate, 0.4286);
    assert.deepEqual(s.sendBackCategories, { requirements: 1, correctness: 2 });
    assert.deepEqual(s.humanDecisions, { retry: 1, accept: 1, skip: 1, resolve: 0, continue: 0 });
    assert.equal(s.humanDecisionsPerMergedTask, 0.6);
    // 9 actor calls at $0.02 (retry 2, sendback 2, stubborn 2, broken 2, dropped 1) + 7 critic calls at $0.01, over 5 merged.
    assert.equal(s.costUsd, 0.25);
    assert.equal(s.costUsdPerMergedTask, 0.05);
    assert.equal(s.tokens, 16 * 120);
    assert.equal(s.tokensPerMergedTask, 384);
    assert.ok(s.wallMsPerMergedTask !== null && s.wallMsPerMergedTask > 0);

    const scripted = s.byAgent.scripted!;
    assert.deepEqual([scripted.calls, scripted.failedCalls, scripted.costUsd, scripted.tasks, scripted.merged], [16, 2, 0.25, 5, 4]);
    assert.deepEqual([scripted.firstPassGateRate, scripted.reviews, scripted.sendBackRate, scripted.humanDecisionsPerMergedTask], [0.75, 7, 0.4286, 0.75]);
    // Its tasks' every call ($0.24 in run 1) over its 4 merged tasks.
    assert.equal(scripted.costUsdPerMergedTask, 0.06);
    const command = s.byAgent.command!;
    assert.deepEqual([command.calls, command.costUsd, command.tasks, command.merged, command.firstPassGateRate, command.reviews, command.sendBackRate], [1, 0, 1, 1, 1, 0, null]);
    assert.equal(command.costUsdPerMergedTask, 0.01, 'the critic call of its task');
    assert.deepEqual(Object.keys(s.byModel), ['cmd-model', 'scripted']);
    assert.deepEqual([s.byRole.actor!.calls, s.byRole.actor!.costUsd, s.byRole.actor!.tasks, s.byRole.actor!.firstPassGateRate], [10, 0.18, 6, 0.8]);
    assert.deepEqual([s.byRole.critic!.calls, s.byRole.critic!.reviews, s.byRole.critic!.sendBackRate, s.byRole.critic!.tasks], [7, 7, 0.4286, 0]);

    const [run1, run2] = s.perRun;
    assert.deepEqual(s.topFailingCommands.map((c) => [c.command, c.failures, c.runIds]), [[GATE, 1, [run1!.runId]]]);
    assert.deepEqual([run1!.tasks, run1!.humanDecisions, run1!.endStatus], [{ planned: 5, merged: 4, skipped: 1, needsYou: 0 }, 3, 'completed']);
    assert.deepEqual([run2!.costUsd, run2!.costUsdPerMergedTask], [0.01, 0.01]);

    const one = JSON.parse(runCli(['stats', '--json', '--run', run2!.runId, '--cwd', r.dir]).stdout) as RunStats;
    assert.deepEqual([one.runs, one.tasks.merged, one.sendBackRate], [1, 1, 0]);
    const later = JSON.parse(runCli(['stats', '--json', '--since', '2999-01-01', '--cwd', r.dir]).stdout) as RunStats & { since: string };
    assert.deepEqual([later.since, later.runs, later.firstPassGateRate, later.costUsdPerMergedTask], ['2999-01-01T00:00:00.000Z', 0, null, null]);

    const text = runCli(['stats', '--cwd', r.dir]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^2 runs: 6 tasks planned, 5 merged, 1 skipped, 0 waiting for you$/m);
    assert.match(text.stdout, /^First-pass gate {2}80% of 5 gated tasks$/m);
    assert.match(text.stdout, /^Critic send-back 42\.9% of 7 reviews; blocking findings: correctness 2, requirements 1$/m);
    assert.match(text.stdout, /^Human decisions {2}0\.6 per merged task \(retry 1, accept 1, skip 1\)$/m);

    const server = await EngineServerProcess.start();
    try {
      const { since, ...stats } = s;
      const answered = await server.request(RunStatsRequest.type, { folder: r.dir });
      assert.deepEqual({ since: answered.since, stats: answered.stats }, { since, stats });
      const onlyTwo = await server.request(RunStatsRequest.type, { folder: r.dir, runIds: [run2!.runId] });
      assert.deepEqual(onlyTwo.stats.perRun.map((x) => x.runId), [run2!.runId]);
    } finally {
      await server.stop();
    }
  });

  it('refuses a date it cannot read and a run that is not here, saying what to give instead', () => {
    const r = makeTempRepo();
    repos.push(r);
    const badDate = runCli(['stats', '--since', 'last tuesday', '--cwd', r.dir]);
    assert.equal(badDate.code, 2);
    assert.match(badDate.stderr, /"last tuesday" is not a date/);
    assert.match(badDate.stderr, /YYYY-MM-DD/);
    const noRun = runCli(['stats', '--run', 'nope', '--cwd', r.dir]);
    assert.equal(noRun.code, 2);
    assert.match(noRun.stderr, /No run "nope"/);
    assert.match(runCli(['stats', '--cwd', r.dir]).stdout, /^No runs in this repository\./);
  });

  it('counts the logs every earlier release wrote (test/fixtures/logs)', () => {
    const root = mkdtempSync(join(tmpdir(), 'taskloom-stats-fixtures-'));
    folders.push(root);
    for (const release of readdirSync(LOG_FIXTURES_DIR, { withFileTypes: true }).filter((e) => e.isDirectory())) {
      for (const name of readdirSync(join(LOG_FIXTURES_DIR, release.name))) {
        const dir = join(LOG_FIXTURES_DIR, release.name, name);
        const meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as FixtureMeta;
        mkdirSync(join(root, '.taskloom', 'runs', meta.runId), { recursive: true });
        cpSync(join(dir, 'events.jsonl'), join(root, '.taskloom', 'runs', meta.runId, 'events.jsonl'));
      }
    }
    const { stats, warnings } = runStats(root);
    assert.deepEqual(warnings, []);
    // Release 0.1's cases as they load (logFixtures.test.ts): completed 3 merged; conflict 2 merged and pad
    // green; needs-human 1 merged, 1 waiting, 1 skipped; paused, cancelled (1 skipped) and interrupted none merged.
    assert.equal(stats.runs, 6);
    assert.deepEqual(stats.tasks, { planned: 16, merged: 6, skipped: 2, needsYou: 1 });
    assert.deepEqual(stats.perRun.map((r) => r.endStatus), ['completed', 'needs_human', 'needs_human', 'paused', 'cancelled', null]);
    assert.ok(stats.gatedTasks > 0 && stats.reviews > 0 && stats.costUsd > 0, 'gates, reviews and calls of 0.1 logs count');
    assert.deepEqual(Object.keys(stats.byRole), ['actor', 'critic']);
  });
});
