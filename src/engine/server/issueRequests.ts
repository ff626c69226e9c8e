import type { CancellationToken } from 'vscode-languageserver/node';
import type {
  IssueGoalParams,
  IssueGoalPreview,
  OpenIssuesParams,
  OpenIssuesResult,
  StartGoalResult,
  StartIssueGoalParams,
} from '../../protocol/engineProtocol';
import { PlanningError } from '../run/planner';
import { leftOutWords } from '../text/issueWords';
import { listOpenIssues, readIssue, startRunFromIssue } from '../usecases/startRunFromIssue';
import { editorRunSettings } from './editorSettings';
import { startPlanning } from './runDriver';
import type { ServerOutput } from './serverOutput';
import { PlanningFailedError } from './userError';
import type { WorkspaceHosts } from './workspaceHosts';
import { forgeAccessOf } from '../deliver/issueStatusFollower';

/** The open issues of the `origin` remote's repository, for the editor's picker. */
export async function openIssues(hosts: WorkspaceHosts, params: OpenIssuesParams): Promise<OpenIssuesResult> {
  const host = await hosts.forFolder(params.folder);
  const { repo, issues } = await host.withEngine((engine) => listOpenIssues(host.door(engine, params.folder), forgeAccessOf(params)));
  return { repo, issues: issues.map(({ number, title, author, url }) => ({ number, title, author, url })) };
}

/** The goal an issue gives, and whether its author may give it without asking, as `taskloom run --issue` shows it. */
export async function issueGoal(hosts: WorkspaceHosts, params: IssueGoalParams): Promise<IssueGoalPreview> {
  const host = await hosts.forFolder(params.folder);
  const { record, goal } = await host.withEngine((engine) => readIssue(host.door(engine, params.folder), { issue: params.issue, ...forgeAccessOf(params) }));
  return { repo: record.repo, number: record.number, url: record.url, author: record.author, authorTrusted: record.authorTrusted, goal, leftOut: record.leftOut.length ? leftOutWords(record.leftOut) : '' };
}

/**
 * `taskloom run --issue` in the editor (src/engine/usecases/startRunFromIssue.ts): reads the issue
 * again, starts its run (an outsider's issue only with the very goal the person confirmed), keeps
 * its status comment while this server plans and drives it, and plans it as startGoal does.
 */
export async function startIssueGoal(hosts: WorkspaceHosts, output: ServerOutput, params: StartIssueGoalParams, token: CancellationToken): Promise<StartGoalResult> {
  const host = await hosts.forFolder(params.folder);
  const { settings, warning } = editorRunSettings(host.root, params.settings, params.workspaceTrusted === true);
  const started = await host.withEngine(async (engine) => {
    const door = host.door(engine, params.folder);
    const issue = await readIssue(door, { issue: params.issue, ...forgeAccessOf(params) });
    const confirmed = params.confirmedGoal !== undefined && params.confirmedGoal === issue.goal;
    host.reachForgeWith(forgeAccessOf(params));
    const run = startRunFromIssue(door, { issue, confirmed, settings, baseDir: params.folder });
    const { runId, ignoredChanges } = run.session.state;
    const planning = startPlanning(host, run.session, params.folder, output);
    token.onCancellationRequested(() => planning.work.controller.abort());
    return { runId, ignoredChanges, plan: planning.plan };
  });
  try {
    return { runId: started.runId, plan: await started.plan, ignoredChanges: started.ignoredChanges, ...(warning ? { settingsWarning: warning } : {}) };
  } catch (error) {
    if (error instanceof PlanningError) throw new PlanningFailedError(started.runId, error);
    throw error;
  }
}
