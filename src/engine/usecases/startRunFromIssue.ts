import { forgeFor } from '../deliver/pullRequests';
import { readIssueGoal, type IssueGoal } from '../deliver/issueGoal';
import type { ExtraRunSettings, RunSettings } from '../domain/runSettings';
import type { Forge, Issue } from '../forge/forge';
import { parseIssueRef } from '../forge/issueRef';
import type { FrontDoor } from './frontDoor';
import { startRun, type StartedRun } from './startRun';
import { UntrustedIssueError } from './useCaseErrors';
import { forgeAccessOf } from '../deliver/issueStatusFollower';

export interface IssueParams {
  /** `OWNER/REPO#N`, the issue's URL, or `#N` for the repository of the remote. */
  issue: string;
  /** The remote whose repository `#N` names; default `origin`. */
  remote?: string;
  /** A token the caller has (the editor's GitHub sign-in); otherwise from the environment. */
  token?: string;
  /** GitHub Enterprise's API; otherwise GITHUB_API_URL, else api.github.com. */
  apiUrl?: string;
}

/** An issue read and made a goal, with the forge it lives on: what a door shows (and, for an outsider's issue, asks about) before starting. */
export interface ReadIssue extends IssueGoal {
  forge: Forge;
}

/** Reads the issue and makes its goal from the trusted text (deliver/issueGoal.ts); starts nothing. */
export async function readIssue(door: FrontDoor, params: IssueParams): Promise<ReadIssue> {
  const ref = parseIssueRef(params.issue);
  const forge = await forgeFor(door.engine.repo.root, {
    remote: params.remote ?? 'origin',
    ...(ref.repo ? { repo: ref.repo } : {}),
    ...forgeAccessOf(params),
  });
  // The status comment of the run it starts is reached the same way.
  door.engine.reachForgeWith(forgeAccessOf(params));
  return { ...(await readIssueGoal(forge, ref.number)), forge };
}

/** How many open issues a picker is offered: the newest; an older one is named by its number. */
export const OPEN_ISSUES_SHOWN = 50;

/** The open issues of the remote's repository, newest first (a door's picker of issues to start from). */
export async function listOpenIssues(door: FrontDoor, params: Omit<IssueParams, 'issue'>): Promise<{ repo: string; issues: Issue[] }> {
  const forge = await forgeFor(door.engine.repo.root, {
    remote: params.remote ?? 'origin',
    ...forgeAccessOf(params),
  });
  return { repo: forge.slug, issues: await forge.openIssues(OPEN_ISSUES_SHOWN) };
}

export interface StartFromIssueParams {
  issue: ReadIssue;
  /** A person read the goal of an issue opened by someone without write access and said to use it. */
  confirmed: boolean;
  /** The person with write access whose label started it (`watch --issues`): their label is the say-so. */
  labelledBy?: string;
  settings: RunSettings & ExtraRunSettings;
  baseDir: string;
}

/**
 * Starts a run whose goal is the issue (startRun) and records the issue in the run's log: its pull
 * request closes it, and the engine keeps the issue's status comment current from then on, whatever
 * moves the run (TaskloomEngine.reachForgeWith says how it reaches the forge). An issue whose
 * author has no write access is refused (UntrustedIssueError, with the goal it would give) unless
 * confirmed, or labelled by someone with write access (`watch --issues`).
 */
export function startRunFromIssue(door: FrontDoor, params: StartFromIssueParams): StartedRun {
  const { record, goal } = params.issue;
  if (!record.authorTrusted && !params.confirmed && !params.labelledBy) throw new UntrustedIssueError(`${record.repo}#${record.number}`, record.author, goal);
  const started = startRun(door, { goal, settings: params.settings, baseDir: params.baseDir });
  const confirmedBy = record.authorTrusted || params.labelledBy ? {} : { confirmedBy: 'human' as const };
  started.session.emit({ type: 'run_issue', ...record, ...confirmedBy, ...(params.labelledBy ? { labelledBy: params.labelledBy } : {}) });
  return started;
}
