import type { SettingName } from '../engine/domain/runSettings';

export type { RoleSetting, RunSettings } from '../engine/domain/runSettings';

/**
 * The editor's setting for each RunSettings field: the extension reads each by this name, and
 * the server names it in messages about that setting (the CLI names its flags instead).
 */
export const EDITOR_SETTING_KEYS: Record<SettingName, `taskloom.${string}`> = {
  agent: 'taskloom.agent',
  'models.planner': 'taskloom.models.planner',
  'models.actor': 'taskloom.models.actor',
  'models.critic': 'taskloom.models.critic',
  'roles.planner.agent': 'taskloom.roles.planner.agent',
  'roles.actor.agent': 'taskloom.roles.actor.agent',
  'roles.critic.agent': 'taskloom.roles.critic.agent',
  'roles.planner.model': 'taskloom.roles.planner.model',
  'roles.actor.model': 'taskloom.roles.actor.model',
  'roles.critic.model': 'taskloom.roles.critic.model',
  claudePath: 'taskloom.claude.path',
  codexPath: 'taskloom.codex.path',
  commandArgv: 'taskloom.command.argv',
  scriptedScenario: 'taskloom.scripted.scenario',
  maxParallel: 'taskloom.maxParallel',
  gateCommands: 'taskloom.gate.commands',
  actorAllowedCommands: 'taskloom.actor.allowedCommands',
  maxAttempts: 'taskloom.maxAttempts',
  maxReviewCycles: 'taskloom.maxReviewCycles',
  stuckThresholdSeconds: 'taskloom.stuckThresholdSeconds',
  gateTimeoutSeconds: 'taskloom.gate.timeoutSeconds',
  'budgets.runUsd': 'taskloom.budget.runUsd',
  'budgets.runTokens': 'taskloom.budget.runTokens',
  'budgets.taskUsd': 'taskloom.budget.taskUsd',
  'budgets.taskTokens': 'taskloom.budget.taskTokens',
  overlap: 'taskloom.schedule.overlap',
  worktreeCopy: 'taskloom.worktree.copy',
  worktreeSetup: 'taskloom.worktree.setup',
  worktreeRoot: 'taskloom.worktree.root',
  sandboxMode: 'taskloom.sandbox.mode',
  sandboxAllowedHosts: 'taskloom.sandbox.allowedHosts',
  sandboxSetupHosts: 'taskloom.sandbox.setupHosts',
  sandboxGateHosts: 'taskloom.sandbox.gateHosts',
  sandboxEnv: 'taskloom.sandbox.env',
  sandboxHiddenPaths: 'taskloom.sandbox.hiddenPaths',
  sandboxReadPaths: 'taskloom.sandbox.readPaths',
  sandboxAgentsSeeIncludedFiles: 'taskloom.sandbox.agentsSeeIncludedFiles',
  sensitivePaths: 'taskloom.sensitivePaths',
  gateBaseline: 'taskloom.gate.baseline',
  gateAffectedOnly: 'taskloom.gate.affectedOnly',
  gateFlakyReruns: 'taskloom.gate.flakyReruns',
  gateOnBaseFailure: 'taskloom.gate.onBaseFailure',
  gateKeepOutputs: 'taskloom.gate.keepOutputs',
};
