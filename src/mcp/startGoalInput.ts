import type { SettingName } from '../engine/domain/runSettings';
import type { LayeredSettings, ProjectValues } from '../engine/domain/settingLayers';
import { environmentName, RUN_SETTING_KEYS } from '../engine/domain/settingKeys';
import { CONFIG_FILE_NAME } from '../engine/run/configFile/readConfigFile';
import * as z from 'zod';

const AGENTS = ['claude', 'codex', 'command', 'scripted'] as const;
const count = z.number().int().positive();
const agentOfRole = (role: string) =>
  z
    .strictObject({
      agent: z.enum(AGENTS).optional().describe(`The ${role}'s agent`),
      model: z.string().min(1).optional().describe(`The ${role}'s model, as its agent names it`),
    })
    .optional();

/**
 * taskloom_startGoal's input: what `taskloom run` takes that a caller decides per run. Unknown keys
 * are refused (strict), so a misspelt option is an error the model sees, never a setting dropped.
 */
export const START_GOAL_INPUT = z.strictObject({
  goal: z.string().optional().describe("What to build: the planner drafts a plan from it (or it replaces the plan file's goal)"),
  planFile: z.string().optional().describe('A plan the user wrote: a JSON plan or Markdown checklist inside the repository, relative to its root'),
  agent: z.enum(AGENTS).optional().describe('The agent of every role not set in agents (default: the settings, else claude)'),
  model: z.string().min(1).optional().describe('The model of every role not set in agents'),
  agents: z
    .strictObject({ planner: agentOfRole('planner'), actor: agentOfRole('actor (who writes the code)'), critic: agentOfRole('critic (who reviews it)') })
    .optional()
    .describe('An agent and model per role, over agent and model'),
  script: z.string().optional().describe("The scripted agent's scenario file (tests and demos), inside the repository, relative to its root"),
  gate: z.array(z.string().min(1)).min(1).optional().describe('Gate commands every task must pass (default: detected from the project)'),
  parallel: count.optional().describe('Tasks run side by side at most'),
  maxAttempts: count.optional().describe('Actor attempts per task before it needs you'),
  maxReviews: count.optional().describe("Critic reviews asking for changes per task before it needs you"),
  budget: z
    .strictObject({
      runUsd: z.number().positive().optional().describe('Dollars the whole run may spend'),
      runTokens: count.optional().describe('Tokens the whole run may use'),
      taskUsd: z.number().positive().optional().describe('Dollars one task may spend'),
      taskTokens: count.optional().describe('Tokens one task may use'),
    })
    .optional()
    .describe('Limits: at 100 % the run (or the task) stops and needs you'),
  autoApprove: z.boolean().optional().describe('Approve the plan and start at once, without asking the user'),
});

export type StartGoalInput = z.infer<typeof START_GOAL_INPUT>;

/** What the input sets, by taskloom.json key; what it leaves out lets the environment and taskloom.json show through. */
export function inputValues(input: StartGoalInput, scenarioPath: string | undefined): ProjectValues {
  const { agents = {}, budget = {} } = input;
  const values: ProjectValues = {
    // A scenario file alone means the scripted agent, as `run --script`.
    agent: input.agent ?? (scenarioPath ? 'scripted' : undefined),
    'roles.planner.agent': agents.planner?.agent,
    'roles.actor.agent': agents.actor?.agent,
    'roles.critic.agent': agents.critic?.agent,
    'models.planner': agents.planner?.model ?? input.model,
    'models.actor': agents.actor?.model ?? input.model,
    'models.critic': agents.critic?.model ?? input.model,
    'scripted.scenario': scenarioPath,
    'gate.commands': input.gate,
    maxParallel: input.parallel,
    maxAttempts: input.maxAttempts,
    maxReviewCycles: input.maxReviews,
    'budget.runUsd': budget.runUsd,
    'budget.runTokens': budget.runTokens,
    'budget.taskUsd': budget.taskUsd,
    'budget.taskTokens': budget.taskTokens,
  };
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
}

/** Where each setting is in taskloom_startGoal's input, for the settings it takes. */
const INPUT_NAMES: Partial<Record<SettingName, string>> = {
  agent: 'agent',
  'roles.planner.agent': 'agents.planner.agent',
  'roles.actor.agent': 'agents.actor.agent',
  'roles.critic.agent': 'agents.critic.agent',
  'models.planner': 'agents.planner.model',
  'models.actor': 'agents.actor.model',
  'models.critic': 'agents.critic.model',
  'roles.planner.model': 'agents.planner.model',
  'roles.actor.model': 'agents.actor.model',
  'roles.critic.model': 'agents.critic.model',
  scriptedScenario: 'script',
  gateCommands: 'gate',
  maxParallel: 'parallel',
  maxAttempts: 'maxAttempts',
  maxReviewCycles: 'maxReviews',
  'budgets.runUsd': 'budget.runUsd',
  'budgets.runTokens': 'budget.runTokens',
  'budgets.taskUsd': 'budget.taskUsd',
  'budgets.taskTokens': 'budget.taskTokens',
};

/**
 * How messages name each setting for a model: by where its value came from, else where the caller
 * would set it (the tool's input where it takes one; otherwise the server's environment or
 * taskloom.json, which are the user's to change).
 */
export function mcpSettingNames(sources: LayeredSettings['sources'] = {}): Record<SettingName, string> {
  const names = {} as Record<SettingName, string>;
  for (const [name, key] of Object.entries(RUN_SETTING_KEYS) as [SettingName, (typeof RUN_SETTING_KEYS)[SettingName]][]) {
    const input = INPUT_NAMES[name];
    const elsewhere = `"${key}" in ${CONFIG_FILE_NAME} (or ${environmentName(key)} in the MCP server's environment)`;
    if (sources[key] === 'environment') names[name] = `${environmentName(key)} in the MCP server's environment`;
    else if (sources[key] === 'file') names[name] = `"${key}" in ${CONFIG_FILE_NAME}`;
    else names[name] = input ? `taskloom_startGoal's ${input}` : elsewhere;
  }
  return names;
}
