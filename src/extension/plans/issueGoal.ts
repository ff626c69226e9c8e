import * as vscode from 'vscode';
import { IssueGoalRequest, OpenIssuesRequest, type ForgeParams, type IssueGoalPreview } from '../../protocol/engineProtocol';
import { withForge } from '../connection/forgeCredentials';
import type { Services } from '../services';

/** An issue to start from, as read and (for an outsider's) confirmed by the person. */
export interface IssueSource {
  issue: string;
  /** The goal the person read and said to use: only for an issue opened by someone without write access. */
  confirmedGoal?: string;
  forge: ForgeParams;
  preview: IssueGoalPreview;
}

const TYPE_IT = 'type';

/**
 * Start Goal from GitHub Issue: the repository's open issues to pick from (or a number or URL
 * typed in), read as `taskloom run --issue` reads them; an issue whose author has no write access
 * is used only once the person read the exact goal it gives and said so. Undefined: nothing to start.
 */
export async function chooseIssue(services: Services, folder: string, given?: string): Promise<IssueSource | undefined> {
  const issue = given ?? (await pickIssue(services, folder));
  if (!issue) return undefined;
  let forge: ForgeParams = {};
  const preview = await withForge(folder, (credentials) => {
    forge = credentials;
    return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Taskloom: reading issue ${issue}…` }, () =>
      services.engine.request(IssueGoalRequest.type, { folder, issue, ...credentials }),
    );
  });
  if (!preview) return undefined;
  const name = `${preview.repo}#${preview.number}`;
  if (preview.leftOut) void vscode.window.showInformationMessage(`Taskloom: issue ${name}: ${preview.leftOut}; the ledger records them.`);
  if (preview.authorTrusted) return { issue, forge, preview };
  const agreed = await services.confirm(
    `Issue ${name} was opened by @${preview.author}, who has no write access to ${preview.repo}. Use its text as the goal?`,
    `Its text steers the agents. The run's goal would be exactly:\n\n${preview.goal}`,
    'Start',
  );
  if (!agreed) {
    void vscode.window.showInformationMessage(`Taskloom: issue ${name} was not confirmed; nothing was started.`);
    return undefined;
  }
  return { issue, confirmedGoal: preview.goal, forge, preview };
}

/** The open issues, newest first, with a last row to type a number or URL; undefined when the person left. */
async function pickIssue(services: Services, folder: string): Promise<string | undefined> {
  const listed = await withForge(folder, (forge) =>
    vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Taskloom: listing open issues' }, () =>
      services.engine.request(OpenIssuesRequest.type, { folder, ...forge }),
    ),
  );
  if (!listed) return undefined;
  const rows = [
    ...listed.issues.map((issue) => ({ label: `#${issue.number} ${issue.title}`, description: `@${issue.author}`, issue: `${listed.repo}#${issue.number}` })),
    { label: '$(edit) Another issue…', description: 'its number, OWNER/REPO#N or URL', issue: TYPE_IT },
  ];
  const picked = await vscode.window.showQuickPick(rows, {
    title: 'Taskloom: Start Goal from GitHub Issue',
    placeHolder: listed.issues.length ? `An open issue of ${listed.repo}, to plan as a goal` : `${listed.repo} has no open issue: name one`,
    matchOnDescription: true,
  });
  if (picked?.issue !== TYPE_IT) return picked?.issue;
  const typed = await vscode.window.showInputBox({
    title: 'Taskloom: Start Goal from GitHub Issue',
    prompt: 'The issue: #N (of this repository), OWNER/REPO#N, or its URL',
    ignoreFocusOut: true,
    // Its shape is checked by the engine, with the CLI's words for a name it cannot read.
    validateInput: (text) => (text.trim() ? undefined : 'Name the issue'),
  });
  return typed?.trim() || undefined;
}
