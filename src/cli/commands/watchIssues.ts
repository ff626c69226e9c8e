import type { TaskloomEngine } from '../../engine/run/engine';
import type { RunSession } from '../../engine/session/runSession';
import { RUN_STATUS_WORDS } from '../../engine/domain/stateWords';
import { errorText } from '../../engine/domain/taskloomError';
import { planFindingsSentence } from '../../engine/text/planFindingWords';
import { foregroundDoor } from '../../engine/usecases/frontDoor';
import { watchIssues, type IssueWatchNews, type IssueWatchParams } from '../../engine/usecases/watchIssues';
import { printConfinement } from '../driveWithProgress';
import { bold, dim, green, red, yellow } from '../format';
import { createProgressPrinter } from '../progressPrinter';
import { FLAG_LABELS } from '../runOptions';
import { formatRunSummary } from '../summary';

/**
 * `watch --issues LABEL`: src/engine/usecases/watchIssues.ts in the foreground, each run driven
 * with progress as `run` drives it; Ctrl-C (the caller's signal) stops the run under way cleanly
 * (it is resumed with `taskloom resume`, not started again), or a pull request's fix under way (the
 * next watch finishes it), and ends the watch. Between runs, the fixes to their pull requests show
 * with progress as `watch RUN` shows them.
 */
export async function watchLabelledIssues(engine: TaskloomEngine, params: IssueWatchParams, signal: AbortSignal): Promise<void> {
  // One clock for every pass over the pull requests, so a fix's lines read in the watch's time.
  const pullRequestProgress = createProgressPrinter();
  await watchIssues(
    foregroundDoor(engine, FLAG_LABELS),
    params,
    {
      drive: async (session: RunSession, driveSignal: AbortSignal) => {
        const stop = session.onEvent(createProgressPrinter());
        try {
          printConfinement(await engine.confine(session));
          return await engine.drive(session, driveSignal);
        } finally {
          stop();
          process.stdout.write(`${formatRunSummary(session.state)}\n`);
        }
      },
      follow: (session: RunSession) => session.onEvent(pullRequestProgress),
      tell: (news) => process.stdout.write(`${newsLine(news, params.once)}\n`),
    },
    signal,
  );
}

function newsLine(news: IssueWatchNews, once: boolean): string {
  switch (news.kind) {
    case 'watching':
      return `Watching ${news.repo}'s open issues labelled "${news.label}"${once ? ', one pass' : ''}: a run for each labelled by someone with write access, one at a time${once ? '' : ", each run's pull request kept green until merged or closed"}`;
    case 'outsiderLabel':
      return yellow(
        news.labelledBy
          ? `#${news.number} ${news.title}: labelled by @${news.labelledBy}, who has no write access; nothing started`
          : `#${news.number} ${news.title}: no record of who labelled it; nothing started`,
      );
    case 'starting':
      return `${bold(`#${news.number}`)} ${news.title} (${news.url}), labelled by @${news.labelledBy}: run ${news.runId}`;
    case 'notPlanned':
      return red(`#${news.number}: run ${news.runId} was not started: ${news.findings ? `the plan cannot start: ${planFindingsSentence(news.findings)}` : errorText(news.error!)}`);
    case 'ended':
      if (news.deliveryError) return red(`#${news.number}: run ${news.runId} completed, but its pull request was not opened: ${errorText(news.deliveryError)} (taskloom pr ${news.runId})`);
      if (news.pullRequests.length) return green(`#${news.number}: ${news.pullRequests.map(({ pullRequest }) => `pull request #${pullRequest.number} ${pullRequest.url}`).join(', ')}`);
      return yellow(`#${news.number}: run ${news.runId} ended: ${RUN_STATUS_WORDS[news.status]}; the issue's status comment says so ${dim(`(taskloom resume ${news.runId})`)}`);
    case 'pollFailed':
      return yellow(`cannot reach the forge (${errorText(news.error)}); trying again at the next poll`);
    case 'pullRequestProgress':
      return `Issue #${news.number}'s pull requests: ${news.line}`;
    case 'pullRequestsSettled': {
      const colour = news.outcome === 'needs_human' ? red : green;
      return colour(`Issue #${news.number}'s pull requests: ${news.reasons.join('; ')}`) + (news.next ? `\n${news.next} ${dim(`(looked at again each poll; taskloom watch ${news.runId})`)}` : '');
    }
    case 'pullRequestsFailed':
      return yellow(`Issue #${news.number}'s pull requests (run ${news.runId}): ${errorText(news.error)}; trying again at the next poll`);
  }
}
