import { setTimeout as sleep } from 'node:timers/promises';
import type { CancellationToken } from 'vscode-languageserver/node';
import {
  PULL_REQUEST_REMOTE,
  type AdoptPullRequestParams,
  type AdoptPullRequestResult,
  type OpenPullRequestParams, type OpenPullRequestResult, type WatchPullRequestsParams, type WatchPullRequestsResult } from '../../protocol/engineProtocol';
import { AuthorTrust } from '../deliver/authorTrust';
import type { WatchMode, WatchPass } from '../deliver/watchPass';
import { WATCH_ESCALATE_AFTER_MINUTES, WATCH_INTERVAL_SECONDS, WatchTurns } from '../deliver/watchPullRequests';
import { watchTarget } from '../usecases/keepPullRequestsGreen';
import * as opening from '../usecases/openPullRequest';
import { editorRunSettings } from './editorSettings';
import { adoptPullRequest as adopt } from '../usecases/watchPersonalPullRequest';
import { errorText } from '../domain/taskloomError';
import { LockHeldError } from '../store/lock';
import type { ServerOutput } from './serverOutput';
import type { WorkspaceHosts } from './workspaceHosts';

/** Pushes a completed run and opens (or updates) its pull request, as `taskloom pr` does (src/engine/usecases/openPullRequest.ts). */
export async function openPullRequest(hosts: WorkspaceHosts, output: ServerOutput, params: OpenPullRequestParams): Promise<OpenPullRequestResult> {
  const host = await hosts.forFolder(params.folder);
  return host.withEngine(async (engine) => {
    const { runId, opened } = await opening.openPullRequest(host.door(engine, params.folder), { ...params, remote: params.remote ?? PULL_REQUEST_REMOTE });
    for (const o of opened) output.log(`Pull request #${o.pullRequest.number} ${o.action} for run ${runId}: ${o.pullRequest.url}`);
    return { pullRequests: opened.map((o) => ({ taskId: o.taskId, number: o.pullRequest.number, url: o.pullRequest.url, action: o.action })) };
  });
}

/** Takes on a person's own pull request to keep green, as `taskloom watch --pr` does (src/engine/usecases/watchPersonalPullRequest.ts). */
export async function adoptPullRequest(hosts: WorkspaceHosts, output: ServerOutput, params: AdoptPullRequestParams): Promise<AdoptPullRequestResult> {
  const host = await hosts.forFolder(params.folder);
  return host.withEngine(async (engine) => {
    const { settings, warning } = editorRunSettings(host.root, params.settings, params.workspaceTrusted === true);
    if (warning) output.log(warning);
    const adopted = await adopt(host.door(engine, params.folder), { ...params, settings, remote: PULL_REQUEST_REMOTE, baseDir: params.folder });
    output.log(`Pull request #${adopted.pullRequest.number} kept green by run ${adopted.runId}${adopted.reused ? ' (as before)' : ''}: ${adopted.pullRequest.url}`);
    return { runId: adopted.runId, number: adopted.pullRequest.number, url: adopted.pullRequest.url, reused: adopted.reused };
  });
}

/**
 * `taskloom watch` in the editor: a pass, then a wait, until every pull request is merged, closed
 * or needs a person (with `once`, also green), or the editor cancels; one that needs a person is
 * recorded as such (the run's events tell the editor) while the others are still watched. Each pass takes the workspace lock and lets
 * it go, so the CLI can work in between; while the CLI holds it, the watch waits its turn. What it
 * watches is src/engine/usecases/keepPullRequestsGreen.ts's.
 */
export async function watchPullRequests(hosts: WorkspaceHosts, output: ServerOutput, params: WatchPullRequestsParams, token: CancellationToken): Promise<WatchPullRequestsResult> {
  const host = await hosts.forFolder(params.folder);
  const runId = params.runId;
  const controller = new AbortController();
  const listener = token.onCancellationRequested(() => controller.abort());
  const intervalMs = (params.intervalSeconds ?? WATCH_INTERVAL_SECONDS) * 1000;
  const mode: WatchMode = { once: params.once === true, autoMerge: params.autoMerge === true, escalateAfterMs: (params.escalateAfterMinutes ?? WATCH_ESCALATE_AFTER_MINUTES) * 60_000 };
  try {
    const { forge } = await host.withStore((store) => watchTarget(store, params));
    // One session: what the forge said about an author's access is asked once, not on every pass.
    const trust = new AuthorTrust(forge, params.trustedBots ?? []);
    output.log(`Watching the pull request(s) of run ${runId}`);
    const turns = new WatchTurns();
    let saidWaiting = '';
    while (!controller.signal.aborted) {
      let pass: WatchPass;
      try {
        // Each look takes the lock and lets it go: after a fix, the next look takes it again at once.
        pass = await turns.settle((tell) => host.withEngine((engine) => engine.watchPass(host.session(engine, runId, params.folder), forge, trust, mode, controller.signal, tell)), controller.signal);
      } catch (error) {
        if (!(error instanceof LockHeldError)) throw error;
        pass = { kind: 'waiting', reasons: [`waiting its turn: ${errorText(error)}`] };
      }
      if (pass.kind === 'ended') {
        output.log(`Watch of run ${runId} ended (${pass.outcome}): ${pass.reasons.join('; ')}`);
        return { outcome: pass.outcome, reasons: pass.reasons, ...(pass.next ? { next: pass.next, steps: pass.steps ?? [] } : {}) };
      }
      if (pass.kind === 'waiting' && pass.reasons.join('; ') !== saidWaiting) {
        saidWaiting = pass.reasons.join('; ');
        output.log(`Watch of run ${runId}: ${saidWaiting}`);
      }
      if (pass.kind === 'waiting') await sleep(intervalMs, undefined, { signal: controller.signal }).catch(() => undefined);
    }
    return { outcome: 'cancelled', reasons: ['the watch was stopped'] };
  } finally {
    listener.dispose();
  }
}
