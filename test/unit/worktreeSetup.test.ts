import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { flagsRunConfig } from '../helpers/flagsRunConfig';
import { foldEvents } from '../../src/engine/domain/projection';
import { freePort, isPortFree } from '../../src/engine/process/freePort';
import { runConfigFromSettings } from '../../src/engine/run/runConfigFromSettings';
import { EDITOR_SETTING_KEYS, type RunSettings } from '../../src/protocol/runSettings';
import { taskEnv } from '../../src/engine/session/taskEnv';
import { runWorktreeDir } from '../../src/engine/workspace/worktreeRoot';
import { wordDecision } from '../../src/engine/text/decisionWords';
import { EventBuilder } from '../helpers/eventBuilder';

const repo = realpathSync(mkdtempSync(join(tmpdir(), 'taskloom-wtsettings-')));
after(() => rmSync(repo, { recursive: true, force: true }));

const base: RunSettings = {
  agent: 'claude',
  models: {},
  maxParallel: 2,
  gateCommands: ['true'],
  maxAttempts: 3,
  maxReviewCycles: 3,
  stuckThresholdSeconds: 300,
  gateTimeoutSeconds: 600,
  budgets: {},
};
const build = (over: Partial<RunSettings>) => runConfigFromSettings({ ...base, ...over }, { baseDir: repo, repoRoot: repo, env: {}, labels: EDITOR_SETTING_KEYS });

describe('worktree settings', () => {
  it('records nothing when nothing is set, so such a run reads like an older one', () => {
    assert.equal(build({}).worktree, undefined);
    assert.equal(build({ worktreeCopy: [], worktreeSetup: [' '], worktreeRoot: 'inside' }).worktree, undefined);
  });

  it('keeps the patterns and commands, and makes a root of the user\'s absolute', () => {
    const config = build({ worktreeCopy: ['.env*', ' ', '# a comment'], worktreeSetup: ['npm ci --prefer-offline'], worktreeRoot: '../elsewhere' });
    assert.deepEqual(config.worktree, { copy: ['.env*'], setup: ['npm ci --prefer-offline'], root: join(dirname(repo), 'elsewhere') });
    assert.deepEqual(build({ worktreeRoot: '.taskloom/worktrees' }).worktree, undefined, 'the default, said as a path');
  });

  it('refuses a root inside the repository, naming the setting or the flag', () => {
    assert.throws(() => build({ worktreeRoot: 'worktrees' }), /taskloom\.worktree\.root: .*inside the repository/);
    assert.throws(() => flagsRunConfig({ 'worktree-root': repo, gate: ['true'] }, repo, repo), /--worktree-root: .*inside the repository/);
  });

  it('takes --copy, --setup (each repeatable) and --worktree-root from the CLI', () => {
    const config = flagsRunConfig({ copy: ['.env'], setup: ['a', 'b'], 'worktree-root': '/tmp/wt', gate: ['true'] }, repo, repo);
    assert.deepEqual(config.worktree, { copy: ['.env'], setup: ['a', 'b'], root: '/tmp/wt' });
  });

  it('puts a run\'s worktrees inside the repository unless the run has a root', () => {
    assert.equal(runWorktreeDir('/src/app', 'r1'), '/src/app/.taskloom/worktrees/r1');
    assert.equal(runWorktreeDir('/src/app', 'r1', '/wt'), '/wt/app/r1');
  });
});

describe('TASKLOOM_PORT', () => {
  it('is a port nothing listens on, and one that is held is not free', async () => {
    const port = await freePort();
    assert.ok(await isPortFree(port));
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    try {
      assert.equal(await isPortFree(port), false);
      assert.notEqual(await freePort(new Set([port])), port);
    } finally {
      server.close();
    }
  });
});

describe('worktree setup in the projection', () => {
  const prepared = (b: EventBuilder, fresh: boolean, port: number) =>
    b.add({ type: 'worktree_prepared', taskId: 'a', branch: 'taskloom/run-1/a', path: '/wt/a', baseCommit: 'b'.repeat(40), fresh, port });
  const setup = (b: EventBuilder, passed: boolean) =>
    b.add({
      type: 'worktree_setup',
      taskId: 'a',
      path: '/wt/a',
      copied: ['.env'],
      copiedCount: 1,
      notIgnored: [],
      passed,
      commands: [
        passed
          ? { command: 'npm ci', exitCode: 0, timedOut: false, durationMs: 5, output: 'ok\n' }
          : { command: 'npm ci', exitCode: 1, timedOut: false, durationMs: 5, output: 'npm ERR! missing: left-pad\n', failure: { excerpt: 'npm ERR! missing: left-pad', shape: null } },
      ],
    });

  it('a new worktree needs its setup until one passes; a failure is in the ledger with its output', () => {
    const b = new EventBuilder();
    b.move('a', 'BUILD_STARTED');
    prepared(b, true, 41234);
    let state = foldEvents(b.events)!;
    assert.equal(state.tasks.a!.needsSetup, true);
    assert.equal(state.tasks.a!.port, 41234);
    assert.deepEqual(taskEnv(state, 'a'), { TASKLOOM_RUN_ID: 'run-1', TASKLOOM_TASK_ID: 'a', TASKLOOM_PORT: '41234' });

    setup(b, false);
    b.move('a', 'SETUP_FAILED');
    state = foldEvents(b.events)!;
    assert.equal(state.tasks.a!.state, 'NEEDS_HUMAN');
    assert.equal(state.tasks.a!.needsSetup, true, 'a retry runs it again');
    const decision = wordDecision(state.decisions.at(-1)!);
    assert.equal(decision.summary, 'Worktree setup failed: `npm ci` exited 1 (1 untracked file copied in)');
    assert.deepEqual(decision.details, ['Copied: .env', 'npm ERR! missing: left-pad']);

    b.move('a', 'HUMAN_RETRY', 'BUILD_STARTED');
    prepared(b, false, 41234);
    setup(b, true);
    state = foldEvents(b.events)!;
    assert.equal(state.tasks.a!.needsSetup, false);
    assert.equal(wordDecision(state.decisions.at(-1)!).summary, 'Worktree setup done: 1 untracked file copied in, 1 command passed');

    // A worktree reused as it is keeps its setup; a new one needs it again.
    prepared(b, false, 41234);
    assert.equal(foldEvents(b.events)!.tasks.a!.needsSetup, false);
    prepared(b, true, 41234);
    assert.equal(foldEvents(b.events)!.tasks.a!.needsSetup, true);
  });
});
