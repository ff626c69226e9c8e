import * as vscode from 'vscode';
import type { AgentKind } from '../engine/domain/runConfig';
import type { RunSettings } from '../protocol/runSettings';

const optionalNumber = (value: number | null | undefined): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
const optionalText = (value: string | undefined): string | undefined => (value?.trim() ? value.trim() : undefined);

/** The `taskloom.*` settings for a folder (folder-level settings win in multi-root workspaces). */
export function readRunSettings(folder: string): RunSettings {
  const config = vscode.workspace.getConfiguration('taskloom', vscode.Uri.file(folder));
  const models = {
    planner: optionalText(config.get<string>('models.planner')),
    actor: optionalText(config.get<string>('models.actor')),
    critic: optionalText(config.get<string>('models.critic')),
  };
  const role = (name: 'planner' | 'actor' | 'critic') => {
    const agent = optionalText(config.get<string>(`roles.${name}.agent`));
    const model = optionalText(config.get<string>(`roles.${name}.model`));
    return { ...(agent ? { agent } : {}), ...(model ? { model } : {}) };
  };
  const budgets = {
    runUsd: optionalNumber(config.get<number | null>('budget.runUsd')),
    runTokens: optionalNumber(config.get<number | null>('budget.runTokens')),
    taskUsd: optionalNumber(config.get<number | null>('budget.taskUsd')),
    taskTokens: optionalNumber(config.get<number | null>('budget.taskTokens')),
  };
  return {
    agent: config.get<AgentKind>('agent', 'claude'),
    models: Object.fromEntries(Object.entries(models).filter(([, v]) => v)),
    roles: { planner: role('planner'), actor: role('actor'), critic: role('critic') },
    claudePath: optionalText(config.get<string>('claude.path')),
    codexPath: optionalText(config.get<string>('codex.path')),
    commandArgv: config.get<string[]>('command.argv', []),
    scriptedScenario: optionalText(config.get<string>('scripted.scenario')),
    maxParallel: config.get<number>('maxParallel', 2),
    gateCommands: config.get<string[]>('gate.commands', []).filter((c) => c.trim()),
    actorAllowedCommands: config.get<string[]>('actor.allowedCommands', []).filter((c) => c.trim()),
    maxAttempts: config.get<number>('maxAttempts', 3),
    maxReviewCycles: config.get<number>('maxReviewCycles', 3),
    stuckThresholdSeconds: config.get<number>('stuckThresholdSeconds', 300),
    gateTimeoutSeconds: config.get<number>('gate.timeoutSeconds', 600),
    budgets: Object.fromEntries(Object.entries(budgets).filter(([, v]) => v !== undefined)),
    overlap: config.get<string>('schedule.overlap', 'serialize'),
    worktreeCopy: config.get<string[]>('worktree.copy', []).filter((p) => p.trim()),
    worktreeSetup: config.get<string[]>('worktree.setup', []).filter((c) => c.trim()),
    worktreeRoot: optionalText(config.get<string>('worktree.root')),
  };
}

export const isAutopilot = (folder: string): boolean =>
  vscode.workspace.getConfiguration('taskloom', vscode.Uri.file(folder)).get<boolean>('autopilot', false);
