import * as vscode from 'vscode';
import type { CommandId } from '../commandIds';
import { reporting } from '../connection/userErrors';
import { log } from '../logger';
import type { Services } from '../services';
import { showPlanDocument } from '../plans/planDocument';
import { approvePlanFromEdit, editPlan } from '../plans/planEdits';
import { openRejectedPlan, planAgain, startAgainWithPlan } from '../plans/planRecovery';
import { rejectPlan, reviewPlan } from '../plans/planReview';
import { dropPlanTask, fillPlanTask } from '../plans/planTaskFixes';
import { startAgainOf, type StartAgain } from '../state/resumable';
import { pickRun, pickRunFor } from '../targets/pickTarget';
import { isTaskRef, type RunRef, type TaskRef } from '../targets/runRef';
import { runDemo } from './demoCommand';
import { showIntegrationDiff, showTaskDiff } from './diffCommands';
import { keepOwnPullRequestGreen, keepPullRequestGreenCommand, openPullRequest, openPullRequestInBrowser } from './pullRequestCommands';
import { restoreSnapshot } from './restoreSnapshot';
import { addNotificationTarget, removeNotificationTarget } from './notifyCommands';
import { applyIntegration, cancelRun, discardRun, doctor, openDecisionsLedger, resumeLastRun, resumeRun, showRunCommand, treatAsAdvisory, keepAsRequired } from './runCommands';
import { startGoal } from './startGoal';
import { showInsights } from './showInsights';
import { continueTask, decideTask, openTaskWorktree, resolveTask } from './taskCommands';
import { stopTask, takeOverTask } from './personCommands';
import { sendMessageToTask } from './sendMessage';
import { chooseCandidate } from './chooseCandidate';

/**
 * Every `taskloom.*` command (commandIds.ts: one handler for each, by type); each reports its own
 * failure as a message the user can act on. The run view's intents come here too, by command id.
 */
export function registerCommands(services: Services): vscode.Disposable[] {
  // Each checks, when it runs, that the plan still waits for approval (a stale button says what happened instead).
  const withPlan = (action: 'approvePlan' | 'editPlan' | 'rejectPlan', body: (ref: RunRef) => Promise<void>) => async (arg?: unknown) => {
    const ref = await pickRunFor(services.controller, arg, action, 'Taskloom: no plan is waiting for approval.');
    if (ref) await body(ref);
  };
  /** A run that cannot be resumed, only started again (resumeOutlook's `startAgain`), in a way `also` allows. */
  const startingAgain = (body: (ref: RunRef) => Promise<void>, also: (how: StartAgain) => boolean, nothing: string) => async (arg?: unknown) => {
    const ref = await pickRun(services.controller, arg, (e) => {
      const how = startAgainOf(e);
      return how !== undefined && also(how);
    }, `Taskloom: ${nothing}`);
    if (ref) await body(ref);
  };
  /** One of the run view's intents on a task of the plan waiting for approval. */
  const onPlanTask = (body: (ref: TaskRef) => Promise<void>) => async (arg?: unknown) => {
    if (isTaskRef(arg)) await body(arg);
  };
  const commands: Record<CommandId, (...args: never[]) => Promise<unknown>> = {
    'taskloom.startGoal': (args?: Parameters<typeof startGoal>[1]) => startGoal(services, args),
    'taskloom.startGoalFromIssue': (args?: Parameters<typeof startGoal>[1]) => startGoal(services, args, true),
    'taskloom.resumeLastRun': (arg?: unknown) => resumeLastRun(services, arg),
    'taskloom.resumeRun': (arg?: unknown) => resumeRun(services, arg),
    'taskloom.treatAsAdvisory': (arg?: unknown) => treatAsAdvisory(services, arg),
    'taskloom.keepAsRequired': (arg?: unknown) => keepAsRequired(services, arg),
    'taskloom.planAgain': startingAgain((ref) => planAgain(services, ref), () => true, 'no failed or unapproved run to plan again.'),
    'taskloom.startAgainWithPlan': startingAgain((ref) => startAgainWithPlan(services, ref), (how) => how.withPlan, 'no run stopped before its plan was approved.'),
    'taskloom.openRejectedPlan': startingAgain((ref) => openRejectedPlan(services, ref), (how) => how.rejectedPlan, 'no failed planning kept a rejected plan.'),
    'taskloom.cancelRun': (arg?: unknown) => cancelRun(services, arg),
    'taskloom.retryTask': (arg?: unknown, options?: Parameters<typeof decideTask>[3]) => decideTask(services, 'retry', arg, options),
    'taskloom.acceptTask': (arg?: unknown, options?: Parameters<typeof decideTask>[3]) => decideTask(services, 'accept', arg, options),
    'taskloom.skipTask': (arg?: unknown, options?: Parameters<typeof decideTask>[3]) => decideTask(services, 'skip', arg, options),
    'taskloom.resolveTask': (arg?: unknown) => resolveTask(services, arg),
    'taskloom.continueTask': (arg?: unknown) => continueTask(services, arg),
    'taskloom.handBackTask': (arg?: unknown) => continueTask(services, arg, 'handBack'),
    'taskloom.stopTask': (arg?: unknown) => stopTask(services, arg),
    'taskloom.takeOverTask': (arg?: unknown) => takeOverTask(services, arg),
    'taskloom.sendMessageToTask': (arg?: unknown) => sendMessageToTask(services, arg),
    'taskloom.chooseCandidate': (arg?: unknown) => chooseCandidate(services, arg),
    'taskloom.openTaskWorktree': (arg?: unknown, where?: 'newWindow' | 'workspace') => openTaskWorktree(services, arg, where),
    'taskloom.showTaskDiff': (arg?: unknown) => showTaskDiff(services, arg),
    'taskloom.showIntegrationDiff': (arg?: unknown) => showIntegrationDiff(services, arg),
    'taskloom.applyIntegration': (arg?: unknown) => applyIntegration(services, arg),
    'taskloom.openPullRequest': (arg?: unknown, options?: Parameters<typeof openPullRequest>[2]) => openPullRequest(services, arg, options),
    'taskloom.keepPullRequestGreen': (arg?: unknown) => keepPullRequestGreenCommand(services, arg),
    'taskloom.keepOwnPullRequestGreen': (folder?: string, pullRequest?: string) => keepOwnPullRequestGreen(services, folder, pullRequest),
    'taskloom.openPullRequestInBrowser': (arg?: unknown) => openPullRequestInBrowser(services, arg),
    'taskloom.openDecisionsLedger': (arg?: unknown) => openDecisionsLedger(services, arg),
    'taskloom.showRun': (arg?: unknown) => showRunCommand(services, arg),
    'taskloom.showInsights': (folder?: string) => showInsights(services, folder),
    'taskloom.doctor': (folder?: string) => doctor(services, folder),
    'taskloom.discardRun': (arg?: unknown) => discardRun(services, arg),
    // Reviewed while it waits, though a task left to fill in keeps it from being approved yet.
    'taskloom.reviewPlan': withPlan('editPlan', (ref) => reviewPlan(services, ref)),
    'taskloom.approvePlan': withPlan('approvePlan', (ref) => approvePlanFromEdit(services, ref)),
    'taskloom.editPlan': withPlan('editPlan', (ref) => editPlan(services, ref)),
    'taskloom.rejectPlan': withPlan('rejectPlan', (ref) => rejectPlan(services, ref)),
    'taskloom.refreshRuns': () => services.controller.refreshAll({ reloadStates: true }),
    'taskloom.showOutput': async () => log.show(true),
    'taskloom.restartEngine': () => services.engine.restart(),
    'taskloom.runDemo': () => runDemo(services),
    'taskloom.showPlanDocument': async (arg?: unknown) => {
      const ref = await pickRun(services.controller, arg, (entry) => entry.summary.total > 0, 'Taskloom: no run has a plan yet.');
      if (ref) await showPlanDocument(ref);
    },
    'taskloom.fillInPlanTask': onPlanTask((ref) => fillPlanTask(services, ref, ref.taskId)),
    'taskloom.dropPlanTask': onPlanTask((ref) => dropPlanTask(services, ref, ref.taskId)),
    'taskloom.restoreSnapshot': (arg?: unknown) => restoreSnapshot(services, arg),
    'taskloom.addNotificationTarget': () => addNotificationTarget(services),
    'taskloom.removeNotificationTarget': () => removeNotificationTarget(services),
  };
  return Object.entries(commands).map(([id, body]) =>
    vscode.commands.registerCommand(id, reporting(id.replace('taskloom.', ''), body as (...args: unknown[]) => Promise<unknown>)),
  );
}
