import { DEFAULT_SANDBOX_SETTINGS } from '../engine/domain/sandboxSettings';
import type { ExtraRunSettings, RunSettings } from '../engine/domain/runSettings';
import { runSettingsOf, type LayeredSettings, type ProjectValues } from '../engine/domain/settingLayers';
import { UsageError } from './cliErrors';
import type { RunConfigFlags } from './runOptions';
import { definedOnly } from './commandSettings';

/** What each flag sets, by its taskloom.json key; a flag not given sets nothing, so the layers below it show through. */
export function flagValues(flags: RunConfigFlags): ProjectValues {
  const model = flags.model;
  const given = (flag: boolean | undefined, value: unknown) => (flag ? value : undefined);
  const values: ProjectValues = {
    // A scenario file alone means the scripted agent.
    agent: flags.agent ?? (flags.script ? 'scripted' : undefined),
    'models.planner': flags['planner-model'] ?? model,
    'models.actor': flags['actor-model'] ?? model,
    'models.critic': flags['critic-model'] ?? model,
    'roles.planner.agent': flags['planner-agent'],
    'roles.actor.agent': flags['actor-agent'],
    'roles.critic.agent': flags['critic-agent'],
    'claude.path': flags['claude-path'] || undefined,
    'codex.path': flags['codex-path'] || undefined,
    // Whichever roles use the command agent take its command line.
    'command.argv': flags.command === undefined ? undefined : parseCommandTemplate(flags.command),
    'scripted.scenario': flags.script || undefined,
    maxParallel: numberFlag('parallel', flags.parallel),
    'gate.commands': flags.gate,
    'actor.allowedCommands': flags['allow-command'],
    maxAttempts: numberFlag('max-attempts', flags['max-attempts']),
    maxReviewCycles: numberFlag('max-reviews', flags['max-reviews']),
    stuckThresholdSeconds: numberFlag('stuck-seconds', flags['stuck-seconds']),
    'gate.timeoutSeconds': numberFlag('gate-timeout', flags['gate-timeout']),
    'budget.runUsd': numberFlag('budget-usd', flags['budget-usd']),
    'budget.runTokens': numberFlag('budget-tokens', flags['budget-tokens']),
    'budget.taskUsd': numberFlag('task-budget-usd', flags['task-budget-usd']),
    'budget.taskTokens': numberFlag('task-budget-tokens', flags['task-budget-tokens']),
    'schedule.overlap': flags.overlap,
    'worktree.copy': flags.copy,
    sensitivePaths: flags['sensitive-path'],
    'worktree.setup': flags.setup,
    'gate.keepOutputs': flags['keep-output'],
    'worktree.root': flags['worktree-root'],
    'sandbox.mode': flags.sandbox,
    'sandbox.allowedHosts': flags['allow-host'],
    'sandbox.gateHosts': flags['gate-host'],
    'sandbox.env': flags['pass-env'],
    'sandbox.agentsSeeIncludedFiles': given(flags['agents-see-included-files'], true),
    'gate.baseline': given(flags['no-baseline'], false),
    'gate.affectedOnly': given(flags['no-affected-only'], false),
    'gate.flakyReruns': numberFlag('flaky-reruns', flags['flaky-reruns']),
    'gate.onBaseFailure': flags['on-base-failure'],
    'candidates.count': numberFlag('candidates', flags.candidates),
    // One flag, comma-separated: `--candidate-agents claude,codex:gpt-5` reads as the list it names.
    'candidates.agents': flags['candidate-agents']?.split(',').map((a) => a.trim()).filter(Boolean),
    'candidates.confirmPick': given(flags['confirm-pick'], true),
  };
  return definedOnly(values);
}

/** The list flags that add to the value below them (the environment's, taskloom.json's or the default), where a list cannot be edited. */
const ADDING_FLAGS = [
  ['setup-host', 'sandbox.setupHosts', DEFAULT_SANDBOX_SETTINGS.setupHosts],
  ['hide-path', 'sandbox.hiddenPaths', DEFAULT_SANDBOX_SETTINGS.hiddenPaths],
  ['read-path', 'sandbox.readPaths', DEFAULT_SANDBOX_SETTINGS.readPaths],
] as const;

/** The layered settings with the adding flags added (each such key then comes from a flag). */
export function withAddingFlags(layered: LayeredSettings, flags: RunConfigFlags): LayeredSettings {
  const values = { ...layered.values };
  const sources = { ...layered.sources };
  for (const [flag, key, defaults] of ADDING_FLAGS) {
    const added = flags[flag];
    if (!added?.length) continue;
    const below = values[key];
    values[key] = [...(Array.isArray(below) ? (below as string[]) : defaults), ...added];
    sources[key] = 'flag';
  }
  return { values, sources };
}

/** The settings a run is made from: runConfigFromSettings (shared with the editor) does the defaults and the checks. */
export function runSettingsFrom(layered: LayeredSettings, flags: RunConfigFlags): RunSettings & ExtraRunSettings {
  return { ...runSettingsOf(layered.values), allowUnverified: flags['allow-unverified'] ?? false, codexConfig: flags['codex-config'] ?? [] };
}

/** Only the syntax: whether the number is allowed is runConfigFromSettings' call. */
function numberFlag(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === '' || Number.isNaN(n)) throw new UsageError(`--${flag} must be a number, got "${text}"`);
  return n;
}

/** A JSON array of arguments, or a plain command line split at spaces (no quoting). */
function parseCommandTemplate(text: string): string[] {
  if (text.trim().startsWith('[')) {
    try {
      const argv: unknown = JSON.parse(text);
      if (Array.isArray(argv) && argv.every((a) => typeof a === 'string')) return argv as string[];
    } catch {
      // reported below
    }
    throw new UsageError('--command: a JSON array of strings was expected, e.g. ["my-agent", "--prompt-file", "{prompt_file}"]');
  }
  return text.trim().split(/\s+/).filter(Boolean);
}
