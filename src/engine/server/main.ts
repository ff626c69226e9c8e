// The engine server: the process the VS Code extension starts (vscode-languageclient, IPC
// transport). It speaks the wire contract in src/protocol/engineProtocol.ts and never imports
// `vscode`. Its stderr is the extension's output channel.
import { createConnection, ProposedFeatures, type CancellationToken, type RequestType } from 'vscode-languageserver/node';
import {
  ActivityNotification,
  ApplyIntegrationRequest,
  PreviewApplyRequest,
  OpenPullRequestRequest,
  WatchPullRequestsRequest,
  AdoptPullRequestRequest,
  ApprovePlanRequest,
  CancelRequest,
  CheckPlanRequest,
  DiffRequest,
  DiscardRunRequest,
  DoctorRequest,
  EventsNotification,
  FileAtCommitRequest,
  GetRunRequest,
  ListRunsRequest,
  RunStatsRequest,
  RejectPlanRequest,
  RevisePlanRequest,
  ResumeRequest,
  RunEventRequest,
  RestoreSnapshotRequest,
  PrepareDemoRequest,
  TranscriptRequest,
  StartGoalRequest,
  TaskDecisionRequest,
  ChooseCandidateRequest,
  ResolveByHandRequest,
  StopTaskRequest,
  TakeOverRequest,
  PredictOverlapsRequest,
  ContinueTaskRequest,
  SendToTaskRequest,
  SetNotifyTargetsRequest,
  OpenIssuesRequest,
  IssueGoalRequest,
  StartIssueGoalRequest,
  type UserFacingErrorData,
} from '../../protocol/engineProtocol';
import { applyIntegrationBranch, discardRun, previewApply, restoreSnapshot } from './branchRequests';
import { cancel, resume, taskDecision, resolveByHand, continueTask, chooseCandidateRequest } from './driveRequests';
import { stopTaskRequest, takeOverRequest } from './personRequests';
import { sendMessage } from './messageRequests';
import { prepareDemo } from './demoRequests';
import { EventBatcher } from './eventBatcher';
import { adoptPullRequest, openPullRequest, watchPullRequests } from './pullRequestRequests';
import { issueGoal, openIssues, startIssueGoal } from './issueRequests';
import { approvePlan, checkPlan, rejectPlan, revisePlan, startGoal } from './planRequests';
import { diff, doctor, fileAtCommit, getRun, listRuns, predictOverlaps, runEvent, transcript } from './queryRequests';
import { runStatsRequest } from './statsRequests';
import { ServerLog } from './serverLog';
import type { ServerOutput } from './serverOutput';
import { toResponseError } from './userError';
import { WorkspaceHosts } from './workspaceHosts';
import { checkedParams, REQUEST_PARAMS, type Schema } from './requestParams';
import { unsupportedPlatformError } from '../domain/platform';

/** On shutdown, how long running agents get to stop before the engines are closed anyway. */
const SHUTDOWN_GRACE_MS = 1500;

const connection = createConnection(ProposedFeatures.all);
const serverLog = new ServerLog();

const sent = (method: string) => (error: unknown) => serverLog.error(`Could not send ${method}: ${String(error)}`);
const output: ServerOutput = {
  events: (params) => void connection.sendNotification(EventsNotification.type, params).catch(sent(EventsNotification.method)),
  activity: (params) => void connection.sendNotification(ActivityNotification.type, params).catch(sent(ActivityNotification.method)),
  log: serverLog.info,
};
const batcher = new EventBatcher(output.events);
const hosts = new WorkspaceHosts(batcher, output);

/**
 * Every request answers with its result, a user-facing error, or an internal error that is
 * logged. The events a request caused go out before its answer, so run state fetched after
 * the answer never lags the events already received.
 */
function handle<P, R>(
  type: RequestType<P, R, UserFacingErrorData>,
  schema: Schema<P>,
  handler: (params: P, token: CancellationToken) => Promise<R>,
): void {
  // By method name: the typed overload's conditional result type cannot be met by a generic R.
  connection.onRequest(type.method, (params: unknown, token: CancellationToken) =>
    Promise.resolve()
      .then(() => {
        const unsupported = unsupportedPlatformError(process.platform);
        if (unsupported) throw unsupported;
        return handler(checkedParams(schema, type.method, params), token);
      })
      .then(
        (result) => {
          batcher.flushAll();
          return result;
        },
        (error: unknown) => {
          batcher.flushAll();
          throw toResponseError(error, type.method, serverLog.error);
        },
      ),
  );
}

handle(StartGoalRequest.type, REQUEST_PARAMS.startGoal, (p, token) => startGoal(hosts, output, p, token));
handle(ApprovePlanRequest.type, REQUEST_PARAMS.approvePlan, (p) => approvePlan(hosts, output, p));
handle(RejectPlanRequest.type, REQUEST_PARAMS.rejectPlan, (p) => rejectPlan(hosts, p));
handle(RevisePlanRequest.type, REQUEST_PARAMS.revisePlan, (p) => revisePlan(hosts, p));
handle(ResumeRequest.type, REQUEST_PARAMS.resume, (p) => resume(hosts, output, p));
handle(CancelRequest.type, REQUEST_PARAMS.run, (p) => cancel(hosts, p));
handle(TaskDecisionRequest.type, REQUEST_PARAMS.taskDecision, (p) => taskDecision(hosts, output, p));
handle(ChooseCandidateRequest.type, REQUEST_PARAMS.chooseCandidate, (p) => chooseCandidateRequest(hosts, output, p));
handle(ResolveByHandRequest.type, REQUEST_PARAMS.task, (p) => resolveByHand(hosts, p));
handle(PredictOverlapsRequest.type, REQUEST_PARAMS.run, (p) => predictOverlaps(hosts, p));
handle(ContinueTaskRequest.type, REQUEST_PARAMS.task, (p) => continueTask(hosts, output, p));
handle(StopTaskRequest.type, REQUEST_PARAMS.task, (p) => stopTaskRequest(hosts, p));
handle(TakeOverRequest.type, REQUEST_PARAMS.task, (p) => takeOverRequest(hosts, p));
handle(SendToTaskRequest.type, REQUEST_PARAMS.sendToTask, (p) => sendMessage(hosts, p));
handle(PreviewApplyRequest.type, REQUEST_PARAMS.applyIntegration, (p) => previewApply(hosts, p));
handle(ApplyIntegrationRequest.type, REQUEST_PARAMS.applyIntegration, (p) => applyIntegrationBranch(hosts, output, p));
handle(DiscardRunRequest.type, REQUEST_PARAMS.discardRun, (p) => discardRun(hosts, output, p));
handle(RestoreSnapshotRequest.type, REQUEST_PARAMS.restoreSnapshot, (p) => restoreSnapshot(hosts, output, p));
handle(PrepareDemoRequest.type, REQUEST_PARAMS.prepareDemo, (p) => prepareDemo(p));
handle(OpenPullRequestRequest.type, REQUEST_PARAMS.openPullRequest, (p) => openPullRequest(hosts, output, p));
handle(AdoptPullRequestRequest.type, REQUEST_PARAMS.adoptPullRequest, (p) => adoptPullRequest(hosts, output, p));
handle(WatchPullRequestsRequest.type, REQUEST_PARAMS.watchPullRequests, (p, token) => watchPullRequests(hosts, output, p, token));
handle(ListRunsRequest.type, REQUEST_PARAMS.listRuns, (p) => listRuns(hosts, p));
handle(GetRunRequest.type, REQUEST_PARAMS.run, (p) => getRun(hosts, p));
handle(RunStatsRequest.type, REQUEST_PARAMS.runStats, (p) => runStatsRequest(hosts, p));
handle(DiffRequest.type, REQUEST_PARAMS.diff, (p) => diff(hosts, p));
handle(FileAtCommitRequest.type, REQUEST_PARAMS.fileAtCommit, (p) => fileAtCommit(hosts, p));
handle(DoctorRequest.type, REQUEST_PARAMS.doctor, (p) => doctor(p));
handle(RunEventRequest.type, REQUEST_PARAMS.runEvent, (p) => runEvent(hosts, p));
handle(TranscriptRequest.type, REQUEST_PARAMS.transcript, (p) => transcript(hosts, p));
handle(CheckPlanRequest.type, REQUEST_PARAMS.checkPlan, (p) => checkPlan(p));
handle(OpenIssuesRequest.type, REQUEST_PARAMS.openIssues, (p) => openIssues(hosts, p));
handle(IssueGoalRequest.type, REQUEST_PARAMS.issueGoal, (p) => issueGoal(hosts, p));
handle(StartIssueGoalRequest.type, REQUEST_PARAMS.startIssueGoal, (p, token) => startIssueGoal(hosts, output, p, token));
handle(SetNotifyTargetsRequest.type, REQUEST_PARAMS.setNotifyTargets, async (p) => hosts.setNotifyTargets(p.targets));

connection.onInitialize(() => ({ capabilities: {}, serverInfo: { name: 'taskloom-engine' } }));

let stopping: Promise<void> | undefined;
/** Aborts running work, gives agents a moment to stop, and releases every workspace lock. */
function stopEverything(): Promise<void> {
  stopping ??= hosts.shutdown(SHUTDOWN_GRACE_MS).catch((error: unknown) => serverLog.error(`Shutdown failed: ${(error as Error).stack ?? String(error)}`));
  return stopping;
}
connection.onShutdown(() => stopEverything());
// `exit` ends the process right after this handler; the stores' and locks' exit hooks flush
// and release what a missing `shutdown` left open, and agent process groups are killed.
connection.onExit(() => serverLog.info('exit'));
// The editor went away without a goodbye: stop cleanly rather than drive runs nobody watches.
process.on('disconnect', () => {
  void stopEverything().then(() => process.exit(0));
});

// Background work reports its failures as events; anything that still escapes is a bug to log, not a reason to die.
process.on('unhandledRejection', (reason) => serverLog.error(`Unhandled rejection: ${(reason as Error)?.stack ?? String(reason)}`));
process.on('uncaughtException', (error) => serverLog.error(`Uncaught exception: ${error.stack ?? String(error)}`));

connection.listen();
serverLog.connect(connection.console);
serverLog.info(`Taskloom engine server started (pid ${process.pid})`);
