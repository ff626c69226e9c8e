import { setTimeout as sleep } from 'node:timers/promises';
import { AuthorTrust } from '../deliver/authorTrust';
import { readIssueGoal } from '../deliver/issueGoal';
import { labelledIssues, type LabelledIssue } from '../deliver/labelledIssues';
import { forgeFor, type OpenedPullRequest } from '../deliver/pullRequests';
import { planTaskFindings, type PlanTaskFinding } from '../domain/planFindings';
import type { RunStatus } from '../domain/runState';
import type { ExtraRunSettings, RunSettings } from '../domain/runSettings';
import type { Forge } from '../forge/forge';
import type { DriveOutcome } from '../run/engineShutdown';
import type { RunSession } from '../session/runSession';
import { planFindingsSentence } from '../text/planFindingWords';
import type { FrontDoor } from './frontDoor';
import { openPullRequest } from './openPullRequest';
import { approvePlan, rejectPlan } from './planApproval';
import { draftPlan } from './startRun';
import { startRunFromIssue } from './startRunFromIssue';
import { forgeAccessOf } from '../deliver/issueStatusFollower';
import { issueRuns, IssuePullRequests, type IssuePullRequestListener, type IssuePullRequestMode, type IssuePullRequestNews } from './issuePullRequests';

export interface IssueWatchParams {
  label: string;
  /** Each run's settings (agents, gate, budgets), as `run` takes them. */
  settings: RunSettings & ExtraRunSettings;
  baseDir: string;
  /**
   * One pass over the labelled issues, then return; otherwise poll every intervalMs until the
   * signal aborts, keeping the issue runs' pull requests green between polls (`pullRequests`).
   */
  once: boolean;
  /** `watch RUN`'s --auto-merge, --escalate-after and --trusted-bot, for the pull requests kept green. */
  pullRequests: IssuePullRequestMode;
  intervalMs: number;
  /** The remote whose repository is watched, and its pull requests pushed to; default `origin`. */
  remote?: string;
  token?: string;
  apiUrl?: string;
}

/** What the watch did, as data, for the door to word. */
export type IssueWatchNews =
  | { kind: 'watching'; repo: string; label: string }
  | { kind: 'outsiderLabel'; number: number; title: string; labelledBy: string | undefined }
  | { kind: 'starting'; number: number; title: string; url: string; labelledBy: string; runId: string }
  /** Planning failed (`error`), or left tasks to fill in (`findings`): the run ended unapproved. */
  | { kind: 'notPlanned'; number: number; runId: string; error?: Error; findings?: PlanTaskFinding[] }
  | { kind: 'ended'; number: number; runId: string; status: RunStatus; pullRequests: OpenedPullRequest[]; deliveryError?: Error }
  | { kind: 'pollFailed'; error: Error }
  | IssuePullRequestNews;

/** How the door drives a run and hears what the watch does. */
export interface IssueWatchDriver extends IssuePullRequestListener {
  /** Drives an approved run to its end or until `signal` aborts (the CLI in the foreground, with progress). */
  drive(session: RunSession, signal: AbortSignal): Promise<DriveOutcome>;
  tell(news: IssueWatchNews): void;
}

/**
 * `watch --issues LABEL`: polls the repository's open issues with the label and, one at a time,
 * starts a run for each labelled by someone with write access (run --issue's use case; the label is
 * the say-so, so the plan is approved as autopilot would), drives it, and delivers a completed one
 * as a pull request that closes the issue; then goes on to the next. An outsider's label starts
 * nothing (told once per issue and labeller). An issue with a run (its `run_issue`) is never started
 * again, after a restart too. The issue's status comment follows each run (the engine keeps it).
 * Unless `once`, after each run and each poll, a pass keeps the issue runs' pull requests green as
 * `watch RUN` does (IssuePullRequests): one process, one engine, never a pass while a run drives.
 */
export async function watchIssues(door: FrontDoor, params: IssueWatchParams, driver: IssueWatchDriver, signal: AbortSignal): Promise<void> {
  const access = forgeAccessOf(params);
  const remote = params.remote ?? 'origin';
  const forge = await forgeFor(door.engine.repo.root, { remote, ...access });
  door.engine.reachForgeWith(access);
  driver.tell({ kind: 'watching', repo: forge.slug, label: params.label });
  const trust = new AuthorTrust(forge, []);
  const toldOutsiders = new Set<string>();
  const keepingGreen = params.once ? undefined : new IssuePullRequests(door, forge.slug, params.pullRequests, access, driver);
  while (!signal.aborted) {
    let found: LabelledIssue[] = [];
    try {
      // Each issue is started once, whatever became of its run.
      const started = new Set(issueRuns(door.engine.store, forge.slug).map((run) => run.number));
      found = await labelledIssues(forge, params.label, started, trust);
    } catch (error) {
      if (params.once) throw error;
      driver.tell({ kind: 'pollFailed', error: error as Error });
    }
    for (const labelled of found) {
      if (signal.aborted) return;
      if (labelled.start) {
        // An issue that cannot be read now has no run yet: the next pass tries it again.
        await runIssue(door, forge, labelled, { ...params, remote }, driver, signal).catch((error: unknown) => {
          if (params.once) throw error;
          driver.tell({ kind: 'pollFailed', error: error as Error });
        });
        await keepingGreen?.pass(signal);
        continue;
      }
      const said = `${labelled.issue.number}:${labelled.labelledBy ?? ''}`;
      if (toldOutsiders.has(said)) continue;
      toldOutsiders.add(said);
      driver.tell({ kind: 'outsiderLabel', number: labelled.issue.number, title: labelled.issue.title, labelledBy: labelled.labelledBy });
    }
    if (!keepingGreen) return;
    await keepingGreen.pass(signal);
    await sleep(params.intervalMs, undefined, { signal }).catch(() => undefined);
  }
}

/** Starts, plans, drives and delivers the run of one issue a writer labelled. */
async function runIssue(door: FrontDoor, forge: Forge, labelled: LabelledIssue, params: IssueWatchParams & { remote: string }, driver: IssueWatchDriver, signal: AbortSignal): Promise<void> {
  const { number } = labelled.issue;
  const read = await readIssueGoal(forge, number);
  const { session } = startRunFromIssue(door, { issue: { ...read, forge }, confirmed: false, labelledBy: labelled.labelledBy!, settings: params.settings, baseDir: params.baseDir });
  const { runId } = session;
  driver.tell({ kind: 'starting', number, title: labelled.issue.title, url: labelled.issue.url, labelledBy: labelled.labelledBy!, runId });
  try {
    const plan = await draftPlan(door, session, signal);
    const findings = planTaskFindings(plan);
    if (findings.length > 0) {
      rejectPlan(door, { runId, reason: `the plan cannot start: ${planFindingsSentence(findings)}` });
      return driver.tell({ kind: 'notPlanned', number, runId, findings });
    }
  } catch (error) {
    if (!signal.aborted) driver.tell({ kind: 'notPlanned', number, runId, error: error as Error });
    return;
  }
  const approved = approvePlan(door, { runId, by: 'autopilot' });
  await driver.drive(approved.session, signal);
  const status = approved.session.state.status;
  if (status !== 'completed') return driver.tell({ kind: 'ended', number, runId, status, pullRequests: [] });
  try {
    const { opened } = await openPullRequest(door, { runId, remote: params.remote, ...forgeAccessOf(params) });
    driver.tell({ kind: 'ended', number, runId, status, pullRequests: opened });
  } catch (error) {
    driver.tell({ kind: 'ended', number, runId, status, pullRequests: [], deliveryError: error as Error });
  }
}
