import { DEFAULT_SENSITIVE_PATHS } from '../../src/engine/domain/sensitivePaths';
import { actorAllowedCommands } from '../../src/engine/domain/actorCommands';
import { DEFAULT_SANDBOX_SETTINGS } from '../../src/engine/domain/sandboxSettings';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { agentFor, agentsInUse, planAgentProblems } from '../../src/engine/domain/agentRoles';
import { DEFAULT_GATE_CONFIG, DEFAULT_RUN_CONFIG } from '../../src/engine/domain/runConfig';
import { runConfigFromSettings, SettingsError } from '../../src/engine/run/runConfigFromSettings';
import { EDITOR_SETTING_KEYS, type RunSettings } from '../../src/protocol/runSettings';

const dir = mkdtempSync(join(tmpdir(), 'taskloom-settings-'));
after(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, 'scenario.json'), '{}');
writeFileSync(join(dir, 'package.json'), JSON.stringify({ scripts: { test: 'node --test' } }));

// Nothing set: every default is the engine's.
const base: RunSettings = {};
const build = (over: Partial<RunSettings> & Record<string, unknown>) =>
  runConfigFromSettings({ ...base, ...over } as RunSettings, { baseDir: dir, repoRoot: dir, env: {}, labels: EDITOR_SETTING_KEYS });

describe('runConfigFromSettings', () => {
  it('builds the CLI defaults from default settings, detecting the gate', () => {
    const config = build({});
    const claude = { kind: 'claude', binaryPath: 'claude', models: {} };
    assert.deepEqual(config, {
      ...DEFAULT_RUN_CONFIG,
      gateCommands: ['npm test'],
      sensitivePaths: [...DEFAULT_SENSITIVE_PATHS],
      agent: claude,
      roles: { planner: { agent: 'claude' }, actor: { agent: 'claude' }, critic: { agent: 'claude' } },
      // codex needs no setting to be callable, so a plan task may name it; command and scripted do.
      agents: { claude, codex: { kind: 'codex', binaryPath: 'codex', models: {}, configOverrides: [] } },
      sandbox: DEFAULT_SANDBOX_SETTINGS,
      gate: DEFAULT_GATE_CONFIG,
    });
  });

  it('records the sandbox settings, checking each host is host:port and the mode is one of auto, on, off', () => {
    const config = build({ sandboxMode: 'on', sandboxGateHosts: ['127.0.0.1:5432'], sandboxEnv: ['MY_TOOL_*'] });
    assert.deepEqual(config.sandbox, { ...DEFAULT_SANDBOX_SETTINGS, mode: 'on', gateHosts: ['127.0.0.1:5432'], env: ['MY_TOOL_*'] });
    assert.throws(() => build({ sandboxMode: 'sometimes' }), /taskloom\.sandbox\.mode must be one of auto, on, off, got "sometimes"/);
    assert.throws(() => build({ sandboxAllowedHosts: ['example.com'] }), /taskloom\.sandbox\.allowedHosts: "example.com" is not host:port/);
  });

  it('records the gate outputs kept in the work, only when some are named, and refuses a pattern reaching outside the repository', () => {
    assert.deepEqual(build({ gateKeepOutputs: [' src/generated/** ', ''] }).gate, { ...DEFAULT_GATE_CONFIG, keepOutputs: ['src/generated/**'] });
    assert.equal('keepOutputs' in build({ gateKeepOutputs: [] }).gate!, false, 'none named, none recorded');
    assert.throws(() => build({ gateKeepOutputs: ['../elsewhere/**'] }), /taskloom\.gate\.keepOutputs: "\.\.\/elsewhere\/\*\*" would name a path outside the repository/);
    assert.throws(() => build({ gateKeepOutputs: ['/etc/passwd'] }), /outside the repository/);
  });

  it('gives each role its own agent and model, falling back to the agent and models settings', () => {
    const config = build({
      agent: 'claude',
      models: { planner: 'opus', critic: 'sonnet' },
      roles: { critic: { agent: 'codex', model: 'gpt-5-codex' }, actor: { model: 'haiku' } },
    });
    assert.deepEqual(config.roles, { planner: { agent: 'claude', model: 'opus' }, actor: { agent: 'claude', model: 'haiku' }, critic: { agent: 'codex', model: 'gpt-5-codex' } });
    assert.deepEqual(agentFor(config, 'critic'), { agent: config.agents!.codex, model: 'gpt-5-codex' });
    assert.deepEqual(agentFor(config, 'actor', { agent: 'codex' }), { agent: config.agents!.codex }, "another agent's model is not passed on");
    assert.deepEqual(agentFor(config, 'actor', { model: 'sonnet' }), { agent: config.agents!.claude, model: 'sonnet' });
    assert.deepEqual(agentsInUse(config).map((u) => [u.agent.kind, u.roles]), [['claude', ['planner', 'actor']], ['codex', ['critic']]]);
  });

  it('checks a role\'s agent strictly and names the setting', () => {
    assert.throws(() => build({ roles: { critic: { agent: 'gemini' } } }), /taskloom\.roles\.critic\.agent must be one of claude, codex, command, scripted, got "gemini"/);
    assert.throws(() => build({ roles: { actor: { agent: 'scripted' } } }), /The scripted agent needs a scenario file \(taskloom\.scripted\.scenario\)/);
    const config = build({});
    const plan = { goal: 'g', tasks: [{ id: 'a', title: 'A', description: 'a', acceptance: [], dependsOn: [], agent: 'command' as const }] };
    assert.deepEqual(planAgentProblems(config, plan), ['task "a" names the command agent as its actor, but no command line is set for the command agent']);
  });

  it('reads runs from before roles: one agent for every role, with a model per role', () => {
    const old = { ...build({}), agent: { kind: 'claude' as const, binaryPath: 'claude', models: { critic: 'sonnet' } } };
    delete (old as { roles?: unknown }).roles;
    delete (old as { agents?: unknown }).agents;
    assert.deepEqual(agentFor(old, 'critic'), { agent: old.agent, model: 'sonnet' });
    assert.deepEqual(agentFor(old, 'planner'), { agent: old.agent });
  });

  it('takes models, paths, budgets, gate commands and a scenario relative to the folder', () => {
    const config = build({
      agent: 'scripted',
      scriptedScenario: 'scenario.json',
      gateCommands: ['make check', '  '],
      budgets: { runUsd: 2.5, taskTokens: 1000 },
      maxParallel: 4,
      actorAllowedCommands: [' npm install ', ''],
    });
    assert.deepEqual(config.actorAllowedCommands, ['npm install']);
    assert.deepEqual(actorAllowedCommands(config), ['make check', 'npm install']);
    assert.deepEqual(actorAllowedCommands({ gateCommands: ['npm run lint && npm test', 'make | tee log'] }), [
      'npm run lint',
      'npm test',
      'make',
      'tee log',
    ]);
    assert.deepEqual(config.agent, { kind: 'scripted', scriptPath: join(dir, 'scenario.json') });
    assert.deepEqual(config.gateCommands, ['make check']);
    assert.deepEqual(config.budgets, { runUsd: 2.5, taskTokens: 1000 });
    assert.equal(config.maxParallel, 4);
    assert.deepEqual(build({ agent: 'codex', models: { critic: ' o3 ', actor: '' } }).agent, {
      kind: 'codex',
      binaryPath: 'codex',
      models: { critic: 'o3' },
      configOverrides: [],
    });
  });

  it('names the setting that is wrong, with what it got', () => {
    const wrong = (over: Record<string, unknown>, pattern: RegExp) =>
      assert.throws(() => build(over), (e: unknown) => e instanceof SettingsError && pattern.test(e.message));
    wrong({ maxParallel: 0 }, /^taskloom\.maxParallel must be a whole number ≥ 1, got 0$/);
    wrong({ maxAttempts: 1.5 }, /taskloom\.maxAttempts .* got 1\.5/);
    wrong({ gateTimeoutSeconds: '60' }, /taskloom\.gate\.timeoutSeconds .* got "60"/);
    wrong({ budgets: { taskUsd: -1 } }, /taskloom\.budget\.taskUsd must be a number > 0/);
    wrong({ agent: 'gpt' }, /taskloom\.agent must be one of claude, codex, command, scripted, got "gpt"/);
    wrong({ agent: 'scripted' }, /needs a scenario file \(taskloom\.scripted\.scenario\)/);
    wrong({ agent: 'scripted', scriptedScenario: 'missing.json' }, /Scenario file not found: .*missing\.json/);
    wrong({ agent: 'command', commandArgv: [] }, /command line \(taskloom\.command\.argv\)/);
    wrong({ gateCommands: 'npm test' }, /taskloom\.gate\.commands must be a list of text/);
  });

  it('names CLI flags instead when given their labels', () => {
    const labels = { ...EDITOR_SETTING_KEYS, maxParallel: '--parallel' };
    assert.throws(
      () => runConfigFromSettings({ ...base, maxParallel: -2 }, { baseDir: dir, repoRoot: dir, labels }),
      /^SettingsError: --parallel must be a whole number ≥ 1, got -2$/,
    );
  });
});
