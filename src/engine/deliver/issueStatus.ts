import type { RunState } from '../domain/runState';
import { ForgeError, type Forge } from '../forge/forge';
import type { RunSession } from '../session/runSession';
import { issueStatusComment, issueStatusLine, issueStatusMarker } from '../text/issueStatusWords';
import { AuthorTrust } from './authorTrust';

/** Whether a comment is one of Taskloom's issue status comments (by its marker). */
export const isTaskloomIssueStatus = (body: string): boolean => /<!-- taskloom:issue-status run=\S+ -->/.test(body);

/**
 * Writes where the run stands into its one status comment on its issue: the comment with the
 * run's marker is edited in place (found again on the forge, so a restarted Taskloom edits the
 * same one); only when there is none is one posted. A marker in a comment by someone without
 * write access is not taken for Taskloom's: their comment is never edited. `knownId`: the comment
 * this process posted or found before, edited without looking again (looked for again when it is
 * gone). `body`: the comment's words, by default where the run stands. Answers the comment's id.
 */
export async function postIssueStatus(forge: Forge, state: RunState, knownId?: string, body = issueStatusComment(state)): Promise<string | undefined> {
  const issue = state.issue;
  if (!issue) return undefined;
  if (knownId) {
    const edited = await forge.editIssueComment(knownId, body).then(
      () => true,
      (error: unknown) => {
        if (error instanceof ForgeError && error.failure === 'not_found') return false;
        throw error;
      },
    );
    if (edited) return knownId;
  }
  const marker = issueStatusMarker(state.runId);
  const trust = new AuthorTrust(forge, []);
  const marked = (await forge.issueComments(issue.number)).filter((c) => c.body.includes(marker));
  for (const comment of marked) {
    if (!comment.bot && !(await trust.standing({ login: comment.author, association: comment.association, bot: false })).trusted) continue;
    if (comment.body.trim() !== body.trim()) await forge.editIssueComment(comment.id, body);
    return comment.id;
  }
  return forge.createIssueComment(issue.number, body);
}

/** Keeps a live run's status comment current; `settle` stops following, posts the run as it is and waits for that. */
export interface IssueStatusKeeper {
  /** Follows another session of the same run too (each use case opens its own: the one that drives it after approval). */
  follow(session: RunSession): void;
  settle(): Promise<void>;
  /** Stops following without posting again (the run is gone), once the update on its way has landed. */
  stop(): Promise<void>;
}

/**
 * Updates the issue's status comment whenever the run's one-line status changes (planned, running
 * n of m, needs you, its end), one update at a time: changes that come while one is on its way are
 * folded into the next, which shows the run as it is then (a fast run costs few forge calls). A
 * forge that fails (or cannot be reached at all: `forge` rejected) is told to `onFailure`, tried
 * again with the next change, and never stops the run.
 */
export function keepIssueStatus(session: RunSession, forge: Forge | Promise<Forge>, onFailure: (error: Error) => void): IssueStatusKeeper {
  let shown = '';
  let commentId: string | undefined;
  let inFlight: Promise<void> | undefined;
  let again = false;
  // The session last followed: an earlier one may be closed by now (the engine server closes its
  // engine between planning and driving).
  let current = session;
  const post = async (): Promise<void> => {
    do {
      again = false;
      const state = current.state;
      shown = issueStatusLine(state);
      await Promise.resolve(forge).then((reached) => postIssueStatus(reached, state, commentId)).then(
        (id) => {
          commentId = id;
        },
        (error: unknown) => {
          shown = '';
          onFailure(error as Error);
        },
      );
    } while (again);
    inFlight = undefined;
  };
  const update = () => {
    if (issueStatusLine(current.state) === shown) return;
    if (inFlight) again = true;
    else inFlight = post();
  };
  const stops = [session.onEvent(update)];
  update();
  return {
    follow(other) {
      current = other;
      stops.push(other.onEvent(update));
    },
    async settle() {
      for (const stop of stops) stop();
      update();
      await inFlight;
    },
    async stop() {
      for (const stop of stops) stop();
      again = false;
      await inFlight?.catch(() => undefined);
    },
  };
}
