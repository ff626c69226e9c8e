import type { NextStep } from '../engine/domain/nextStep';
import type { SettingName } from '../engine/domain/runSettings';

/**
 * The command line a next step is in a terminal (the editor offers the same step as a button).
 * `flags`: how the caller names a setting to change (the CLI's flags); the MCP server, which has
 * no tool for most steps, hands them to the user as these commands too.
 */
export function terminalCommand(step: NextStep, flags: Record<SettingName, string>): string {
  switch (step.kind) {
    case 'resume':
      return `taskloom resume${step.runId ? ` ${step.runId}` : ''}`;
    case 'treatAsAdvisory':
      return `taskloom resume --advisory ${step.runId}`;
    case 'keepAsRequired':
      return `taskloom resume --required ${step.runId}`;
    case 'cancelRun':
      return `taskloom cancel ${step.runId}`;
    case 'apply':
      return `taskloom apply ${step.runId}`;
    case 'discardAnyway':
      return `taskloom discard ${step.runId} --force`;
    case 'listRuns':
      return 'taskloom runs';
    case 'doctor':
      return 'taskloom doctor';
    case 'keepPullRequestGreen':
      return `taskloom watch ${step.runId}`;
    case 'openPullRequest':
      return `taskloom pr ${step.runId}`;
    case 'startFromPlanFile':
      return 'taskloom run --plan FILE';
    case 'changeSetting':
      return `${flags[step.setting]} ${step.value ?? '…'}`;
    case 'initRepository':
      return 'git init && git add -A && git commit -m "first commit"';
    case 'trustRepository':
      return `git config --global --add safe.directory ${step.path}`;
    case 'addRemote':
      return 'git remote add origin URL   (or name another remote: --remote NAME)';
    case 'fetchBranch':
      return `git fetch ${step.remote} ${step.branch}`;
    case 'mergeByHand':
      return `git merge ${step.source}`;
    case 'nameRepository':
      return '--repo OWNER/REPO';
    case 'nameBaseBranch':
      return '--base BRANCH';
    case 'allowConfigFile':
      return 'taskloom config allow   (or pass --allow-config)';
  }
}
