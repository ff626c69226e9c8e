import type { SettingName } from './runSettings';

/**
 * Each run setting's key: the editor's setting is `taskloom.<key>` (src/protocol/runSettings.ts
 * names those, held to these by a test) and taskloom.json, the project's configuration file, uses
 * the key itself. One spelling for one setting, wherever a person writes it.
 */
export const RUN_SETTING_KEYS = {
  agent: 'agent',
  'models.planner': 'models.planner',
  'models.actor': 'models.actor',
  'models.critic': 'models.critic',
  'roles.planner.agent': 'roles.planner.agent',
  'roles.actor.agent': 'roles.actor.agent',
  'roles.critic.agent': 'roles.critic.agent',
  'roles.planner.model': 'roles.planner.model',
  'roles.actor.model': 'roles.actor.model',
  'roles.critic.model': 'roles.critic.model',
  claudePath: 'claude.path',
  codexPath: 'codex.path',
  commandArgv: 'command.argv',
  scriptedScenario: 'scripted.scenario',
  maxParallel: 'maxParallel',
  gateCommands: 'gate.commands',
  actorAllowedCommands: 'actor.allowedCommands',
  maxAttempts: 'maxAttempts',
  maxReviewCycles: 'maxReviewCycles',
  stuckThresholdSeconds: 'stuckThresholdSeconds',
  gateTimeoutSeconds: 'gate.timeoutSeconds',
  'budgets.runUsd': 'budget.runUsd',
  'budgets.runTokens': 'budget.runTokens',
  'budgets.taskUsd': 'budget.taskUsd',
  'budgets.taskTokens': 'budget.taskTokens',
  overlap: 'schedule.overlap',
  worktreeCopy: 'worktree.copy',
  worktreeSetup: 'worktree.setup',
  worktreeRoot: 'worktree.root',
  sandboxMode: 'sandbox.mode',
  sandboxAllowedHosts: 'sandbox.allowedHosts',
  sandboxSetupHosts: 'sandbox.setupHosts',
  sandboxGateHosts: 'sandbox.gateHosts',
  sandboxEnv: 'sandbox.env',
  sandboxHiddenPaths: 'sandbox.hiddenPaths',
  sandboxReadPaths: 'sandbox.readPaths',
  sandboxAgentsSeeIncludedFiles: 'sandbox.agentsSeeIncludedFiles',
  sensitivePaths: 'sensitivePaths',
  gateBaseline: 'gate.baseline',
  gateAffectedOnly: 'gate.affectedOnly',
  gateFlakyReruns: 'gate.flakyReruns',
  gateOnBaseFailure: 'gate.onBaseFailure',
  gateKeepOutputs: 'gate.keepOutputs',
  'candidates.count': 'candidates.count',
  'candidates.agents': 'candidates.agents',
  'candidates.confirmPick': 'candidates.confirmPick',
} as const satisfies Record<SettingName, string>;

/** The settings beside a run's: how a run is approved and applied, and how its pull requests are watched. */
export const DELIVERY_SETTING_KEYS = ['autopilot', 'apply.history', 'github.apiUrl', 'pullRequests.keepGreen', 'pullRequests.pollSeconds', 'pullRequests.trustedBots', 'pullRequests.escalateAfterMinutes', 'pullRequests.autoMerge'] as const;

export type RunSettingKey = (typeof RUN_SETTING_KEYS)[SettingName];
export type DeliverySettingKey = (typeof DELIVERY_SETTING_KEYS)[number];
/** A key of taskloom.json: every `taskloom.*` setting of the editor, without the prefix. */
export type ProjectSettingKey = RunSettingKey | DeliverySettingKey;

export const PROJECT_SETTING_KEYS: readonly ProjectSettingKey[] = [...Object.values(RUN_SETTING_KEYS), ...DELIVERY_SETTING_KEYS];

/**
 * The editor's settings that taskloom.json never holds: `notify` names where word of your runs goes,
 * often with a token in its URL, which does not belong in a committed file (the CLI takes
 * `--notify` and TASKLOOM_NOTIFY instead).
 */
export const USER_ONLY_KEYS = ['notify'] as const;

/** What starting a run reads: its settings, and whether its plan is approved without asking. */
export const RUN_START_KEYS: readonly ProjectSettingKey[] = [...Object.values(RUN_SETTING_KEYS), 'autopilot'];

export const settingNameOfKey = (key: string): SettingName | undefined =>
  (Object.entries(RUN_SETTING_KEYS) as [SettingName, string][]).find(([, k]) => k === key)?.[0];

/**
 * The keys a repository's taskloom.json may set without asking: each can neither start a program
 * nor send or show a secret. Default-deny: a key not listed here (a path to an agent, a command
 * line, gate and setup commands, a scenario file, where worktrees go, the sensitive paths, every
 * sandbox key, where the GitHub token goes, whose words steer an agent) is used only once the user
 * allowed the file (CLI) or trusts the workspace (editor). Why each is safe:
 */
export const SAFE_PROJECT_KEYS: ReadonlySet<ProjectSettingKey> = new Set<ProjectSettingKey>([
  // Picks among the agents the user installed and signed in to, at the paths the user set.
  'agent', 'roles.planner.agent', 'roles.actor.agent', 'roles.critic.agent',
  // A model name, passed to that agent as one argument.
  'models.planner', 'models.actor', 'models.critic', 'roles.planner.model', 'roles.actor.model', 'roles.critic.model',
  // Limits and budgets: how much of the machine and the account a run may use.
  'maxParallel', 'maxAttempts', 'maxReviewCycles', 'stuckThresholdSeconds', 'gate.timeoutSeconds',
  'budget.runUsd', 'budget.runTokens', 'budget.taskUsd', 'budget.taskTokens', 'gate.flakyReruns', 'candidates.count',
  // Picks among the agents the user installed, at the paths the user set, and a model name for each.
  'candidates.agents',
  // Only holds the critic's pick for a person: nothing runs that would not have.
  'candidates.confirmPick',
  // How the gate the user allowed is judged, and how tasks are scheduled: no program of their own.
  'gate.baseline', 'gate.affectedOnly', 'gate.onBaseFailure', 'schedule.overlap',
  // Paths inside the repository whose gate output stays for the next, reviewed commit.
  'gate.keepOutputs',
  // What the repository's own .worktreeinclude may name anyway.
  'worktree.copy',
  // Plan approval, how a run lands on the user's branch, how often a pull request is looked at.
  'autopilot', 'apply.history', 'pullRequests.keepGreen', 'pullRequests.pollSeconds',
  // How long a red pull request waits before it is escalated: a time, naming nobody to tell.
  'pullRequests.escalateAfterMinutes',
]);

export const needsTrust = (key: ProjectSettingKey): boolean => !SAFE_PROJECT_KEYS.has(key);

/**
 * The environment variable of a key for the CLI: `TASKLOOM_` and the key in upper snake case
 * (`maxParallel` → `TASKLOOM_MAX_PARALLEL`, `gate.commands` → `TASKLOOM_GATE_COMMANDS`).
 */
export const environmentName = (key: ProjectSettingKey): string =>
  `TASKLOOM_${key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replaceAll('.', '_').toUpperCase()}`;
