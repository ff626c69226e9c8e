/**
 * Every command the extension registers (commands/registerCommands.ts has one handler for each, by
 * type) and package.json contributes, with its title, icon, menus and keybindings
 * (test/unit/extension/contributions.test.ts holds the two together). Code that runs a command names
 * it by this type (runCommand.ts), so it names only a command that is registered.
 */
export const COMMAND_IDS = [
  'taskloom.startGoal',
  'taskloom.resumeLastRun',
  'taskloom.resumeRun',
  'taskloom.treatAsAdvisory',
  'taskloom.keepAsRequired',
  'taskloom.planAgain',
  'taskloom.startAgainWithPlan',
  'taskloom.openRejectedPlan',
  'taskloom.cancelRun',
  'taskloom.retryTask',
  'taskloom.acceptTask',
  'taskloom.skipTask',
  'taskloom.resolveTask',
  'taskloom.continueTask',
  'taskloom.handBackTask',
  'taskloom.stopTask',
  'taskloom.chooseCandidate',
  'taskloom.takeOverTask',
  'taskloom.sendMessageToTask',
  'taskloom.openTaskWorktree',
  'taskloom.showTaskDiff',
  'taskloom.showIntegrationDiff',
  'taskloom.applyIntegration',
  'taskloom.openPullRequest',
  'taskloom.keepPullRequestGreen',
  'taskloom.keepOwnPullRequestGreen',
  'taskloom.openPullRequestInBrowser',
  'taskloom.openDecisionsLedger',
  'taskloom.showRun',
  'taskloom.doctor',
  'taskloom.discardRun',
  'taskloom.reviewPlan',
  'taskloom.refreshRuns',
  'taskloom.showOutput',
  'taskloom.restartEngine',
  'taskloom.approvePlan',
  'taskloom.editPlan',
  'taskloom.rejectPlan',
  'taskloom.runDemo',
  'taskloom.showPlanDocument',
  'taskloom.fillInPlanTask',
  'taskloom.dropPlanTask',
  'taskloom.restoreSnapshot',
] as const;

export type CommandId = (typeof COMMAND_IDS)[number];
