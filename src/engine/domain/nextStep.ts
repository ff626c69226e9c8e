import type { SettingName } from './runSettings';

/**
 * A step the user can take next, as data: an error (or the end of a watch) names it, and each
 * shell offers it its own way — the CLI as the command line to type (src/commandLine/terminalCommands.ts),
 * the editor as a button that runs a command (src/extension/connection/nextStepButtons.ts). The
 * words around it name no command, so they read true in both.
 */
export type NextStep =
  | { kind: 'resume'; runId?: string }
  /** The base fails `commands` where no runner said which tests: count them as advisory for this run, and resume. */
  | { kind: 'treatAsAdvisory'; runId: string; commands: string[] }
  /** The same commands kept as checks of work still to be done: the tasks must make them pass; resume. */
  | { kind: 'keepAsRequired'; runId: string; commands: string[] }
  /** End a run nobody drives that waits for a choice (it stays resumable). */
  | { kind: 'cancelRun'; runId: string }
  | { kind: 'apply'; runId: string }
  /** Discard a run although it holds work never applied or pushed (the editor's Discard asks this itself). */
  | { kind: 'discardAnyway'; runId: string }
  | { kind: 'listRuns' }
  | { kind: 'doctor' }
  | { kind: 'keepPullRequestGreen'; runId: string }
  | { kind: 'openPullRequest'; runId: string }
  /** Start a run from a plan the user writes, not from the planner. */
  | { kind: 'startFromPlanFile' }
  /** A run setting: a flag in the CLI, a setting in the editor; `value` is the one to try, if there is one. */
  | { kind: 'changeSetting'; setting: SettingName; value?: string }
  | { kind: 'initRepository' }
  /** Tell git to trust a repository someone else owns (`safe.directory`). */
  | { kind: 'trustRepository'; path: string }
  | { kind: 'addRemote' }
  | { kind: 'fetchBranch'; remote: string; branch: string }
  /** Merge `source` into the user's branch themselves, resolving its conflicts by hand. */
  | { kind: 'mergeByHand'; source: string }
  /** Say which GitHub repository or base branch a pull request is for: only the CLI has a way to (its --repo, --base). */
  | { kind: 'nameRepository' }
  | { kind: 'nameBaseBranch' }
  /** Allow the repository's taskloom.json, as it is now, to set what starts programs (the editor goes by Workspace Trust instead). */
  | { kind: 'allowConfigFile' };
