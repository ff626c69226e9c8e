import type { NextStep } from '../../engine/domain/nextStep';
import { EDITOR_SETTING_KEYS } from '../../protocol/runSettings';
import type { CommandId } from '../commandIds';

/** A next step as the editor offers it: a notification button that runs a command (Taskloom's, VS Code's git's, the Settings editor). */
export interface StepButton {
  title: string;
  /** Taskloom's (so only a registered one), or VS Code's own: its git extension's, the workbench's, the Runs view's focus. */
  command: CommandId | `git.${string}` | `workbench.${string}` | 'taskloom.runs.focus';
  args: unknown[];
}

/**
 * The editor's way to take a step the engine names (the CLI prints the same step as a command
 * line: src/commandLine/terminalCommands.ts). Undefined where the editor has no such step: it asks the
 * question itself (discarding anyway), or only the CLI can name what the step needs (a repository,
 * a base branch), or the editor decides by its own rule (Workspace Trust decides what taskloom.json may run).
 */
export function nextStepButton(step: NextStep): StepButton | undefined {
  switch (step.kind) {
    case 'resume':
      return { title: 'Resume', command: 'taskloom.resumeLastRun', args: step.runId ? [{ runId: step.runId }] : [] };
    case 'treatAsAdvisory':
      return { title: 'Treat as Advisory', command: 'taskloom.treatAsAdvisory', args: [{ runId: step.runId }] };
    case 'keepAsRequired':
      return { title: 'Keep as Required', command: 'taskloom.keepAsRequired', args: [{ runId: step.runId }] };
    case 'cancelRun':
      return { title: 'Cancel Run', command: 'taskloom.cancelRun', args: [{ runId: step.runId }] };
    case 'apply':
      return { title: 'Apply Integration…', command: 'taskloom.applyIntegration', args: [{ runId: step.runId }] };
    case 'listRuns':
      return { title: 'Show Runs', command: 'taskloom.runs.focus', args: [] };
    case 'doctor':
      return { title: 'Doctor', command: 'taskloom.doctor', args: [] };
    case 'keepPullRequestGreen':
      return { title: 'Keep Pull Request Green', command: 'taskloom.keepPullRequestGreen', args: [{ runId: step.runId }] };
    case 'openPullRequest':
      return { title: 'Open Pull Request', command: 'taskloom.openPullRequest', args: [{ runId: step.runId }] };
    case 'startFromPlanFile':
      return { title: 'Start Goal…', command: 'taskloom.startGoal', args: [] };
    case 'changeSetting':
      return { title: 'Open Settings', command: 'workbench.action.openSettings', args: [EDITOR_SETTING_KEYS[step.setting]] };
    case 'initRepository':
      return { title: 'Initialize Repository', command: 'git.init', args: [] };
    case 'trustRepository':
      return { title: 'Manage Unsafe Repositories', command: 'git.manageUnsafeRepositories', args: [] };
    case 'addRemote':
      return { title: 'Add Remote…', command: 'git.addRemote', args: [] };
    case 'fetchBranch':
      return { title: 'Fetch', command: 'git.fetch', args: [] };
    case 'mergeByHand':
      return { title: 'Merge Branch…', command: 'git.merge', args: [] };
    case 'discardAnyway':
    case 'nameRepository':
    case 'nameBaseBranch':
    case 'allowConfigFile':
      return undefined;
  }
}
