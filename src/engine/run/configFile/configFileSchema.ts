import * as z from 'zod';
import { AGENT_KINDS } from '../../domain/runConfig';
import { SANDBOX_MODES } from '../../domain/sandboxSettings';
import type { ProjectSettingKey } from '../../domain/settingKeys';

/** A key's schema and, in words, what it allows (for the error that names the key). */
interface KeyRule {
  schema: z.ZodType;
  allows: string;
}

const text: KeyRule = { schema: z.string(), allows: 'text' };
const texts: KeyRule = { schema: z.array(z.string()), allows: 'a list of text, e.g. ["a", "b"]' };
const flag: KeyRule = { schema: z.boolean(), allows: 'true or false' };
const oneOf = (values: readonly string[]): KeyRule => ({ schema: z.enum(values as [string, ...string[]]), allows: `one of ${values.map((v) => JSON.stringify(v)).join(', ')}` });
const wholeAtLeast = (min: number): KeyRule => ({ schema: z.int().min(min), allows: `a whole number ≥ ${min}` });
const numberAtLeast = (min: number): KeyRule => ({ schema: z.number().min(min), allows: `a number ≥ ${min}` });
const budget = (whole: boolean): KeyRule => ({
  schema: (whole ? z.int() : z.number()).positive().nullable(),
  allows: `${whole ? 'a whole number' : 'a number'} > 0, or null for no limit`,
});
const agents = oneOf(AGENT_KINDS);
const roleAgent = oneOf(['', ...AGENT_KINDS]);

/**
 * What each key of taskloom.json holds: the types and bounds of the editor's `taskloom.*`
 * settings (package.json; test/unit/configFile.test.ts holds the two together), checked when the
 * file is read so a mistyped value is named with its key before anything runs.
 */
export const CONFIG_FILE_RULES: Record<ProjectSettingKey, KeyRule> = {
  agent: agents,
  'models.planner': text,
  'models.actor': text,
  'models.critic': text,
  'roles.planner.agent': roleAgent,
  'roles.actor.agent': roleAgent,
  'roles.critic.agent': roleAgent,
  'roles.planner.model': text,
  'roles.actor.model': text,
  'roles.critic.model': text,
  'claude.path': text,
  'codex.path': text,
  'command.argv': texts,
  'scripted.scenario': text,
  maxParallel: wholeAtLeast(1),
  'gate.commands': texts,
  'actor.allowedCommands': texts,
  maxAttempts: wholeAtLeast(1),
  maxReviewCycles: wholeAtLeast(1),
  stuckThresholdSeconds: wholeAtLeast(5),
  'gate.timeoutSeconds': wholeAtLeast(1),
  'budget.runUsd': budget(false),
  'budget.runTokens': budget(true),
  'budget.taskUsd': budget(false),
  'budget.taskTokens': budget(true),
  'schedule.overlap': oneOf(['serialize', 'warn', 'off']),
  'worktree.copy': texts,
  'worktree.setup': texts,
  'worktree.root': text,
  'sandbox.mode': oneOf(SANDBOX_MODES),
  'sandbox.allowedHosts': texts,
  'sandbox.setupHosts': texts,
  'sandbox.gateHosts': texts,
  'sandbox.env': texts,
  'sandbox.hiddenPaths': texts,
  'sandbox.readPaths': texts,
  'sandbox.agentsSeeIncludedFiles': flag,
  sensitivePaths: texts,
  'gate.baseline': flag,
  'gate.affectedOnly': flag,
  'gate.flakyReruns': wholeAtLeast(0),
  'gate.onBaseFailure': oneOf(['ask', 'advisory', 'required']),
  'gate.keepOutputs': texts,
  'candidates.count': wholeAtLeast(1),
  'candidates.agents': texts,
  'candidates.confirmPick': flag,
  autopilot: flag,
  'apply.history': oneOf(['merge', 'squash']),
  'github.apiUrl': text,
  'pullRequests.keepGreen': flag,
  'pullRequests.pollSeconds': numberAtLeast(1),
  'pullRequests.trustedBots': texts,
  'pullRequests.escalateAfterMinutes': numberAtLeast(0),
  'pullRequests.autoMerge': flag,
};
