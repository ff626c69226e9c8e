import { existsSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { validateCommandTemplate } from '../agents/command/commandRunner';
import type { Budgets } from '../domain/budget';
import { MAX_CANDIDATES, type CandidatesConfig } from '../domain/candidates';
import type { OverlapMode } from '../domain/events';
import { AGENT_ROLES } from '../domain/agentRoles';
import { RUN_SETTING_DEFAULTS, WORKTREES_INSIDE, type ExtraRunSettings, type RunSettings, type SettingName } from '../domain/runSettings';
import type { AgentRole } from '../domain/events';
import { AGENT_KINDS, DEFAULT_RUN_CONFIG, type AgentConfig, type AgentKind, type RoleAgent, type GateConfig, type RoleModels, type RunConfig, type WorktreeConfig } from '../domain/runConfig';
import { detectGateCommands } from '../gate/detectGateCommands';
import { resolveWorktreeRoot } from '../workspace/worktreeRoot';
import { TaskloomError, type ErrorKind } from '../domain/taskloomError';
import { DEFAULT_SANDBOX_SETTINGS, SANDBOX_MODES, type SandboxMode, type SandboxSettings } from '../domain/sandboxSettings';
import { parseHostPort } from '../sandbox/hostPort';

/**
 * A setting that cannot make a run; the message names the setting (or the CLI flag) to change,
 * and `setting` says which one it is, where the shell can take the user to it.
 */
export class SettingsError extends TaskloomError {
  readonly setting: SettingName | undefined;

  constructor(message: string, hint?: string, options: { kind?: ErrorKind; setting?: SettingName } = {}) {
    super(options.kind ?? 'bad_input', message, hint);
    this.name = 'SettingsError';
    this.setting = options.setting;
  }
}

export interface RunConfigContext {
  /** A relative scenario path is taken from here (the workspace folder, or the CLI's --cwd). */
  baseDir: string;
  /** Where gate commands are detected when none are set. */
  repoRoot: string;
  /** How messages name each setting: the editor's settings or the CLI's flags. */
  labels: Record<SettingName, string>;
  /** For TASKLOOM_CLAUDE_PATH / TASKLOOM_CODEX_PATH; default process.env. */
  env?: NodeJS.ProcessEnv;
}


/**
 * The RunConfig a run is created with, from the user's settings: the one place for the
 * defaults and the checks, used by the engine server (editor settings) and the CLI (flags).
 * Values are checked at run time, since settings arrive as JSON a user may have mistyped.
 * Pure apart from reading the project for gate detection and checking the scenario file exists.
 */
export function runConfigFromSettings(settings: RunSettings & ExtraRunSettings, context: RunConfigContext): RunConfig {
  const label = context.labels;
  const budgets = buildBudgets(settings.budgets ?? {}, label);
  const gateCommands = stringList(settings.gateCommands, label.gateCommands).filter((c) => c.trim() !== '');
  const actorAllowed = stringList(settings.actorAllowedCommands, label.actorAllowedCommands)
    .map((c) => c.trim())
    .filter(Boolean);
  const agents = buildAgents(settings, context, label);
  const candidates = candidatesConfig(settings.candidates ?? {}, agents.agents ?? {}, label);
  return {
    ...DEFAULT_RUN_CONFIG,
    maxParallel: positiveInt(label.maxParallel, settings.maxParallel, RUN_SETTING_DEFAULTS.maxParallel),
    maxGateFixAttempts: positiveInt(label.maxAttempts, settings.maxAttempts, RUN_SETTING_DEFAULTS.maxAttempts),
    maxReviewCycles: positiveInt(label.maxReviewCycles, settings.maxReviewCycles, RUN_SETTING_DEFAULTS.maxReviewCycles),
    stuckThresholdSeconds: positiveInt(label.stuckThresholdSeconds, settings.stuckThresholdSeconds, RUN_SETTING_DEFAULTS.stuckThresholdSeconds),
    gateTimeoutSeconds: positiveInt(label.gateTimeoutSeconds, settings.gateTimeoutSeconds, RUN_SETTING_DEFAULTS.gateTimeoutSeconds),
    allowUnverified: settings.allowUnverified ?? false,
    sandbox: sandboxSettings(settings, label),
    overlap: overlapMode(settings.overlap, label.overlap),
    ...worktreeConfig(settings, context.repoRoot, label),
    sensitivePaths: settings.sensitivePaths === undefined ? [...RUN_SETTING_DEFAULTS.sensitivePaths] : stringList(settings.sensitivePaths, label.sensitivePaths).map((p) => p.trim()).filter(Boolean),
    ...(actorAllowed.length ? { actorAllowedCommands: actorAllowed } : {}),
    ...(budgets ? { budgets } : {}),
    gate: gateConfig(settings, label),
    gateCommands: gateCommands.length ? gateCommands : detectGateCommands(context.repoRoot),
    ...agents,
    ...(candidates ? { candidates } : {}),
  };
}

/** `candidates.*`, recorded only when a task runs as more than one, the agents are mixed or a pick is held: a run of one try per task stays as it was. */
function candidatesConfig(settings: NonNullable<RunSettings['candidates']>, agents: Partial<Record<AgentKind, AgentConfig>>, label: Record<SettingName, string>): CandidatesConfig | undefined {
  const count = positiveInt(label['candidates.count'], settings.count, RUN_SETTING_DEFAULTS['candidates.count']);
  if (count > MAX_CANDIDATES) throw new SettingsError(`${label['candidates.count']} must be at most ${MAX_CANDIDATES}, got ${count}`);
  const mixed = stringList(settings.agents, label['candidates.agents']).map((entry) => {
    const [kind = '', ...model] = entry.trim().split(':');
    const agent = agentKind(kind, label['candidates.agents']);
    if (!agents[agent]) throw new SettingsError(`${label['candidates.agents']} names the ${agent} agent, but the run has no ${agent} agent configured`);
    return { agent, ...(model.length && model.join(':') ? { model: model.join(':') } : {}) };
  });
  const confirmPick = settings.confirmPick ?? RUN_SETTING_DEFAULTS['candidates.confirmPick'];
  if (typeof confirmPick !== 'boolean') throw new SettingsError(`${label['candidates.confirmPick']} must be true or false, got ${JSON.stringify(confirmPick)}`);
  if (count === 1 && mixed.length === 0 && !confirmPick) return undefined;
  return { count, ...(mixed.length ? { agents: mixed } : {}), ...(confirmPick ? { confirmPick: true as const } : {}) };
}

/**
 * Each role's agent (its own setting, else the default agent) and model (its own, else
 * `models.<role>`), and a configuration for every agent the run can call: those the roles use,
 * checked strictly, and the others the settings make usable, for plan tasks that name their own.
 */
function buildAgents(settings: RunSettings & ExtraRunSettings, context: RunConfigContext, label: Record<SettingName, string>): Pick<RunConfig, 'agent' | 'roles' | 'agents'> {
  const defaultKind = agentKind(settings.agent ?? RUN_SETTING_DEFAULTS.agent, label.agent);
  const models = roleModels(settings.models ?? {}, label);
  const cast = (role: AgentRole): RoleAgent => {
    const own = settings.roles?.[role] ?? {};
    const kind = optionalString(own.agent, label[`roles.${role}.agent`]);
    const model = optionalString(own.model, label[`roles.${role}.model`]) ?? models[role];
    return { agent: kind ? agentKind(kind, label[`roles.${role}.agent`]) : defaultKind, ...(model ? { model } : {}) };
  };
  const roles = { planner: cast('planner'), actor: cast('actor'), critic: cast('critic') };
  const used = new Set<AgentKind>(AGENT_ROLES.map((role) => roles[role].agent));
  const agents: Partial<Record<AgentKind, AgentConfig>> = {};
  for (const kind of AGENT_KINDS) {
    if (used.has(kind)) agents[kind] = buildAgentConfig(kind, models, settings, context, label);
    else {
      try {
        agents[kind] = buildAgentConfig(kind, models, settings, context, label);
      } catch (error) {
        if (!(error instanceof SettingsError)) throw error;
      }
    }
  }
  return { agent: agents[defaultKind] ?? agents[roles.actor.agent]!, roles, agents };
}

function agentKind(value: unknown, name: string): AgentKind {
  if (!AGENT_KINDS.includes(value as AgentKind)) throw new SettingsError(`${name} must be one of ${AGENT_KINDS.join(', ')}, got ${show(value)}`);
  return value as AgentKind;
}

function buildAgentConfig(
  kind: AgentKind,
  models: RoleModels,
  settings: RunSettings & ExtraRunSettings,
  context: RunConfigContext,
  label: Record<SettingName, string>,
): AgentConfig {
  const env = context.env ?? process.env;
  switch (kind) {
    case 'scripted': {
      const scenario = optionalString(settings.scriptedScenario, label.scriptedScenario);
      if (!scenario) throw new SettingsError(`The scripted agent needs a scenario file (${label.scriptedScenario})`);
      const scriptPath = resolve(context.baseDir, scenario);
      if (!existsSync(scriptPath)) throw new SettingsError(`Scenario file not found: ${scriptPath} (${label.scriptedScenario})`);
      return { kind, scriptPath };
    }
    case 'claude':
      return { kind, binaryPath: optionalString(settings.claudePath, label.claudePath) || env.TASKLOOM_CLAUDE_PATH || 'claude', models };
    case 'codex':
      return {
        kind,
        binaryPath: optionalString(settings.codexPath, label.codexPath) || env.TASKLOOM_CODEX_PATH || 'codex',
        models,
        configOverrides: settings.codexConfig ?? [],
      };
    case 'command': {
      const argv = stringList(settings.commandArgv, label.commandArgv);
      if (argv.length === 0) {
        throw new SettingsError(
          `The command agent needs its command line (${label.commandArgv})`,
          'For example ["aider", "--yes", "--message-file", "{prompt_file}"].',
        );
      }
      const problems = validateCommandTemplate(argv);
      if (problems.length) throw new SettingsError(`${label.commandArgv}: ${problems.join('; ')}`);
      return { kind, argv, models };
    }
  }
}

function roleModels(models: NonNullable<RunSettings['models']>, label: Record<SettingName, string>): RoleModels {
  const planner = optionalString(models.planner, label['models.planner']);
  const actor = optionalString(models.actor, label['models.actor']);
  const critic = optionalString(models.critic, label['models.critic']);
  return { ...(planner ? { planner } : {}), ...(actor ? { actor } : {}), ...(critic ? { critic } : {}) };
}

function buildBudgets(budgets: NonNullable<RunSettings['budgets']>, label: Record<SettingName, string>): Budgets | undefined {
  const checked: Budgets = {
    runUsd: positiveNumber(label['budgets.runUsd'], budgets.runUsd),
    runTokens: positiveNumber(label['budgets.runTokens'], budgets.runTokens),
    taskUsd: positiveNumber(label['budgets.taskUsd'], budgets.taskUsd),
    taskTokens: positiveNumber(label['budgets.taskTokens'], budgets.taskTokens),
  };
  const set = Object.entries(checked).filter(([, v]) => v !== undefined);
  return set.length ? (Object.fromEntries(set) as Budgets) : undefined;
}

/** Always recorded, so a resume confines as the start did whatever the settings say by then. */
function sandboxSettings(settings: RunSettings, label: Record<SettingName, string>): SandboxSettings {
  const mode = settings.sandboxMode ?? RUN_SETTING_DEFAULTS.sandboxMode;
  if (!SANDBOX_MODES.includes(mode as SandboxMode)) throw new SettingsError(`${label.sandboxMode} must be one of ${SANDBOX_MODES.join(', ')}, got ${show(mode)}`);
  const hosts = (name: 'sandboxAllowedHosts' | 'sandboxSetupHosts' | 'sandboxGateHosts', fallback: readonly string[]): string[] => {
    const list = settings[name] === undefined ? [...fallback] : stringList(settings[name], label[name]).map((h) => h.trim()).filter(Boolean);
    const bad = list.filter((h) => parseHostPort(h) === null);
    if (bad.length) throw new SettingsError(`${label[name]}: ${bad.map(show).join(', ')} ${bad.length === 1 ? 'is' : 'are'} not host:port`, 'Name each host with its port, exactly, e.g. "api.example.com:443" or "127.0.0.1:5432".');
    return list;
  };
  const paths = (name: 'sandboxHiddenPaths' | 'sandboxReadPaths', fallback: readonly string[]): string[] =>
    settings[name] === undefined ? [...fallback] : stringList(settings[name], label[name]).map((p) => p.trim()).filter(Boolean);
  return {
    mode: mode as SandboxMode,
    hiddenPaths: paths('sandboxHiddenPaths', DEFAULT_SANDBOX_SETTINGS.hiddenPaths),
    readPaths: paths('sandboxReadPaths', DEFAULT_SANDBOX_SETTINGS.readPaths),
    allowedHosts: hosts('sandboxAllowedHosts', DEFAULT_SANDBOX_SETTINGS.allowedHosts),
    setupHosts: hosts('sandboxSetupHosts', DEFAULT_SANDBOX_SETTINGS.setupHosts),
    gateHosts: hosts('sandboxGateHosts', DEFAULT_SANDBOX_SETTINGS.gateHosts),
    env: stringList(settings.sandboxEnv, label.sandboxEnv).map((n) => n.trim()).filter(Boolean),
    agentsSeeIncludedFiles: settings.sandboxAgentsSeeIncludedFiles === true,
  };
}

/** Absent when nothing is set, so a run without worktree settings records what older releases did. */
function worktreeConfig(settings: RunSettings, repoRoot: string, label: Record<SettingName, string>): { worktree?: WorktreeConfig } {
  const copy = stringList(settings.worktreeCopy, label.worktreeCopy).map((p) => p.trim()).filter((p) => p !== '' && !p.startsWith('#'));
  const setup = stringList(settings.worktreeSetup, label.worktreeSetup).filter((c) => c.trim() !== '');
  const { root, problem } = resolveWorktreeRoot(optionalString(settings.worktreeRoot, label.worktreeRoot), repoRoot);
  if (problem) {
    throw new SettingsError(`${label.worktreeRoot}: ${problem}`, `Use "${WORKTREES_INSIDE}" (the default, .taskloom/worktrees) or a folder outside the repository, e.g. ../${basename(repoRoot)}-worktrees.`);
  }
  return copy.length || setup.length || root ? { worktree: { copy, setup, ...(root ? { root } : {}) } } : {};
}

/** Absent when nothing is set, so a run without gate settings records what older releases did. */
function gateConfig(settings: RunSettings, label: Record<SettingName, string>): GateConfig {
  const keepOutputs = stringList(settings.gateKeepOutputs, label.gateKeepOutputs).map((p) => p.trim()).filter(Boolean);
  const outside = keepOutputs.filter((p) => p.startsWith('/') || p.split('/').includes('..'));
  if (outside.length) {
    throw new SettingsError(`${label.gateKeepOutputs}: ${outside.map(show).join(', ')} would name a path outside the repository`, 'Write each pattern from the repository\'s root, e.g. "coverage/lcov.info" or "**/__snapshots__/**".');
  }
  return {
    baseline: settings.gateBaseline ?? RUN_SETTING_DEFAULTS.gateBaseline,
    affectedOnly: settings.gateAffectedOnly ?? RUN_SETTING_DEFAULTS.gateAffectedOnly,
    flakyReruns: nonNegativeInt(label.gateFlakyReruns, settings.gateFlakyReruns, RUN_SETTING_DEFAULTS.gateFlakyReruns),
    ...(keepOutputs.length ? { keepOutputs } : {}),
    ...onBaseFailure(settings.gateOnBaseFailure, label.gateOnBaseFailure),
  };
}

const BASE_FAILURE_ANSWERS = ['ask', 'advisory', 'required'] as const;

function onBaseFailure(value: unknown, name: string): Pick<GateConfig, 'onBaseFailure'> {
  if (value === undefined || value === null || value === '' || value === 'ask') return {};
  if (!BASE_FAILURE_ANSWERS.includes(value as never)) throw new SettingsError(`${name} must be one of ${BASE_FAILURE_ANSWERS.join(', ')}, got ${show(value)}`);
  return { onBaseFailure: value as 'advisory' | 'required' };
}

const OVERLAP_MODES: readonly OverlapMode[] = ['serialize', 'warn', 'off'];

function overlapMode(value: unknown, name: string): OverlapMode {
  if (value === undefined || value === null || value === '') return RUN_SETTING_DEFAULTS.overlap!;
  if (!OVERLAP_MODES.includes(value as OverlapMode)) throw new SettingsError(`${name} must be one of ${OVERLAP_MODES.join(', ')}, got ${show(value)}`);
  return value as OverlapMode;
}

function positiveInt(name: string, value: unknown, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new SettingsError(`${name} must be a whole number ≥ 1, got ${show(value)}`);
  }
  return value;
}

function nonNegativeInt(name: string, value: unknown, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new SettingsError(`${name} must be a whole number ≥ 0, got ${show(value)}`);
  }
  return value;
}

function positiveNumber(name: string, value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new SettingsError(`${name} must be a number > 0, got ${show(value)}`);
  }
  return value;
}

function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new SettingsError(`${name} must be text, got ${show(value)}`);
  return value.trim() || undefined;
}

function stringList(value: unknown, name: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new SettingsError(`${name} must be a list of text, got ${show(value)}`);
  }
  return value as string[];
}

const show = (value: unknown): string => (typeof value === 'string' ? `"${value}"` : JSON.stringify(value) ?? String(value));
