import * as vscode from 'vscode';
import { planTaskFindings } from '../../engine/domain/planFindings';
import { chooseIssue } from '../plans/issueGoal';
import { approveAndDrive, planGoal, type GoalSource, type StartGoalArgs } from '../plans/planning';
import { reviewPlan } from '../plans/planReview';
import type { Services } from '../services';
import { isAutopilot } from '../settings';
import { pickFolder } from '../targets/pickTarget';

/** Start Goal: a goal (or a plan file) planned into a run, approved at once on autopilot, else shown for review. */
export async function startGoal(services: Services, args: StartGoalArgs = {}, fromIssue = false): Promise<string | undefined> {
  const folder = await pickFolder(services.controller, args.folder);
  if (!folder) return undefined;
  const source = await goalSource(services, folder, args, fromIssue);
  if (!source) return undefined;
  const planned = await planGoal(services, folder, source);
  if (!('result' in planned)) return undefined;
  const { result } = planned;
  // Autopilot approves by itself, except a plan with tasks left to fill in: that one waits for the user.
  if (isAutopilot(folder) && planTaskFindings(result.plan).length === 0) {
    await approveAndDrive(services, { folder, runId: result.runId }, undefined, 'autopilot');
  } else {
    await reviewPlan(services, { folder, runId: result.runId });
  }
  return result.runId;
}

/** What the args name, else what the person chooses: a typed goal, a plan file, or an issue (read, and confirmed when an outsider's). */
async function goalSource(services: Services, folder: string, args: StartGoalArgs, fromIssue: boolean): Promise<GoalSource | undefined> {
  const asked = args.goal || args.planFile || args.issue || fromIssue ? args : await askGoalOrPlan(folder);
  if (asked !== 'issue' && asked?.issue === undefined && !fromIssue) return asked;
  const issue = await chooseIssue(services, folder, asked === 'issue' ? undefined : asked?.issue);
  return issue && { fromIssue: issue };
}

async function askGoalOrPlan(folder: string): Promise<StartGoalArgs | 'issue' | undefined> {
  const choice = await vscode.window.showQuickPick(
    [
      { label: '$(edit) Describe a goal', description: 'the planner breaks it into tasks', choice: 'goal' as const },
      { label: '$(file) Use a plan file', description: 'JSON, or a Markdown checklist', choice: 'plan' as const },
      { label: '$(github) Plan a GitHub issue', description: 'its title, body and the comments of people with write access', choice: 'issue' as const },
    ],
    { placeHolder: 'Start a Taskloom run' },
  );
  if (!choice) return undefined;
  if (choice.choice === 'issue') return 'issue';
  if (choice.choice === 'goal') {
    const goal = await vscode.window.showInputBox({
      title: 'Taskloom: Start Goal',
      prompt: 'What should be built? The planner turns it into tasks you approve before anything runs.',
      placeHolder: 'e.g. add rate limiting to the /api routes, with tests',
      ignoreFocusOut: true,
      validateInput: (text) => (text.trim().length < 3 ? 'Describe the goal in a few words' : undefined),
    });
    return goal?.trim() ? { goal: goal.trim() } : undefined;
  }
  const files = await vscode.window.showOpenDialog({
    defaultUri: vscode.Uri.file(folder),
    canSelectMany: false,
    openLabel: 'Use this plan',
    filters: { Plans: ['json', 'md', 'markdown'] },
  });
  return files?.[0] ? { planFile: files[0].fsPath } : undefined;
}
