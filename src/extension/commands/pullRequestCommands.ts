import { autoMergesPullRequests, keepsPullRequestsGreen, pullRequestEscalateAfterMinutes, pullRequestPollSeconds, readRunSettings, trustedPullRequestBots } from '../settings';
import * as vscode from 'vscode';
import { AdoptPullRequestRequest, OpenPullRequestRequest, WatchPullRequestsRequest, type WatchPullRequestsResult } from '../../protocol/engineProtocol';
import { withForge } from '../connection/forgeCredentials';
import { nextStepButton } from '../connection/nextStepButtons';
import { showError } from '../connection/userErrors';
import type { Services } from '../services';
import { plainText } from '../tree/presentation';
import { pickFolder, pickRun, pickRunFor } from '../targets/pickTarget';
import type { RunRef } from '../targets/runRef';

const key = (ref: RunRef) => `${ref.folder}\n${ref.runId}`;

/** Pushes a completed run and opens its pull request (or updates it), then keeps it green. */
export async function openPullRequest(services: Services, arg?: unknown, options: { stacked?: boolean; draft?: boolean } = {}): Promise<void> {
  const ref = await pickRunFor(services.controller, arg, 'openPullRequest', 'Taskloom: no completed run can become a pull request now.');
  if (!ref) return;
  const state = await services.controller.state(ref.folder, ref.runId);
  try {
    const result = await withForge(ref.folder, (forge) =>
      vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Taskloom: pushing "${plainText(state?.goal ?? ref.runId, 60)}" and opening its pull request…` },
        () => services.engine.request(OpenPullRequestRequest.type, { ...ref, ...options, ...forge }),
      ),
    );
    if (!result) return;
    await services.controller.loadRun(ref.folder, ref.runId);
    const [first] = result.pullRequests;
    if (!first) return;
    const what = result.pullRequests.length > 1 ? `${result.pullRequests.length} stacked pull requests` : `Pull request #${first.number}`;
    void vscode.window.showInformationMessage(`Taskloom: ${what} ${first.action}. While this window is open, Taskloom keeps it green until it is merged.`, 'Open in Browser').then((choice) => {
      if (choice === 'Open in Browser') void vscode.env.openExternal(vscode.Uri.parse(first.url));
    });
    void keepPullRequestGreen(services, ref);
  } catch (error) {
    showError('open the pull request', error);
  }
}

/**
 * Watches the run's pull requests until every one is merged or closed, or needs the user with
 * nothing else left to watch: agents fix failing checks, requested changes and conflicts meanwhile,
 * each pull request on its own. Progress shows in the status bar; one that needs the user or is
 * escalated is told as it happens (pullRequestNotices.ts); the end is a notification with what to do next.
 */
export function keepPullRequestGreen(services: Services, ref: RunRef): Promise<void> {
  const running = services.pullRequestWatches.get(key(ref));
  if (running) return running;
  const watch = (async () => {
    try {
      const intervalSeconds = pullRequestPollSeconds(ref.folder);
      const escalateAfterMinutes = pullRequestEscalateAfterMinutes(ref.folder);
      const settings = { ...(intervalSeconds ? { intervalSeconds } : {}), ...(escalateAfterMinutes !== undefined ? { escalateAfterMinutes } : {}), trustedBots: trustedPullRequestBots(ref.folder), autoMerge: autoMergesPullRequests(ref.folder) };
      const result = await withForge(ref.folder, (forge) =>
        vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Taskloom: keeping the pull requests green until merged', cancellable: true }, (_progress, token) =>
          services.engine.request(WatchPullRequestsRequest.type, { ...ref, ...settings, ...forge }, token),
        ),
      );
      if (!result) return;
      await services.controller.loadRun(ref.folder, ref.runId);
      tellOutcome(services, ref, result);
    } catch (error) {
      showError('keep the pull request green', error);
    } finally {
      services.pullRequestWatches.delete(key(ref));
    }
  })();
  services.pullRequestWatches.set(key(ref), watch);
  return watch;
}

/** Keep Green from the palette or a row: picks a run that has a pull request. */
export async function keepPullRequestGreenCommand(services: Services, arg?: unknown): Promise<void> {
  const ref = await pickRun(services.controller, arg, (e) => Object.keys(e.state?.pullRequests ?? {}).length > 0, 'Taskloom: no run has a pull request yet.');
  if (ref) await keepPullRequestGreen(services, ref);
}

/**
 * Keep This Pull Request Green…: asks for a pull request of the user's own (its number or URL),
 * takes it on as `taskloom watch --pr` does (its run, made the first time) and keeps it green like
 * a run's own. A fork's or a closed pull request is refused, saying why.
 */
export async function keepOwnPullRequestGreen(services: Services, folderArg?: string, given?: string): Promise<void> {
  const folder = await pickFolder(services.controller, folderArg);
  if (!folder) return;
  const pullRequest =
    given ??
    (await vscode.window.showInputBox({
      title: 'Taskloom: Keep This Pull Request Green',
      prompt: 'A pull request of this repository, from one of its branches: agents fix its failing checks and what reviewers with write access ask for, and push to its branch only.',
      placeHolder: '12, or https://github.com/OWNER/REPO/pull/12',
      validateInput: (text) => (/^\s*(#?\d+|https?:\/\/\S+\/pull\/\d+\S*)\s*$/.test(text) ? undefined : 'A number (12) or a pull request URL'),
    }));
  if (!pullRequest) return;
  try {
    const adopted = await withForge(folder, (forge) => services.engine.request(AdoptPullRequestRequest.type, { folder, pullRequest, settings: readRunSettings(folder), workspaceTrusted: vscode.workspace.isTrusted, ...forge }));
    if (!adopted) return;
    // A run made just now is not in the list yet.
    await services.controller.refresh(folder);
    await services.controller.loadRun(folder, adopted.runId);
    void vscode.window.showInformationMessage(`Taskloom: keeping pull request #${adopted.number} green while this window is open; fixes go to its own branch.`);
    void keepPullRequestGreen(services, { folder, runId: adopted.runId });
  } catch (error) {
    showError('keep the pull request green', error);
  }
}

/** Opens a run's pull request (the one of the whole run, or the first of a stack) in the browser. */
export async function openPullRequestInBrowser(services: Services, arg?: unknown): Promise<void> {
  const ref = await pickRun(services.controller, arg, (e) => Object.keys(e.state?.pullRequests ?? {}).length > 0, 'Taskloom: no run has a pull request yet.');
  if (!ref) return;
  const state = await services.controller.state(ref.folder, ref.runId);
  const url = (arg as { url?: string } | undefined)?.url ?? Object.values(state?.pullRequests ?? {})[0]?.url;
  if (url) await vscode.env.openExternal(vscode.Uri.parse(url));
}

/**
 * When the window opens, the pull requests Taskloom opened here and left unfinished (still open,
 * neither merged nor handed to the user) are watched again, so fixes go on where they stopped.
 */
export function watchUnfinishedPullRequests(services: Services): void {
  for (const folder of services.controller.folders()) {
    if (!keepsPullRequestsGreen(folder)) continue;
    for (const entry of services.controller.model.runs(folder)) {
      if (entry.summary.pullRequestsToWatch > 0) void keepPullRequestGreen(services, { folder, runId: entry.summary.runId });
    }
  }
}

function tellOutcome(services: Services, ref: RunRef, result: WatchPullRequestsResult): void {
  const open = (choice: string | undefined) => {
    if (choice === 'Open Pull Request') void openPullRequestInBrowser(services, ref);
  };
  switch (result.outcome) {
    case 'green':
    case 'merged':
      void vscode.window.showInformationMessage(`Taskloom: ${result.reasons.join(' ')}`, 'Open Pull Request').then(open);
      return;
    case 'needs_human': {
      // A notification that is not modal shows no `detail`: what to do next goes in its text, and
      // the steps it speaks of (watch again, open a new one) are buttons beside the pull request's page.
      const steps = (result.steps ?? []).flatMap((step) => nextStepButton(step) ?? []);
      void vscode.window
        .showWarningMessage(`Taskloom: ${[...result.reasons, ...(result.next ? [result.next] : [])].join(' ')}`, 'Open in Browser', ...steps.map((s) => s.title))
        .then((choice) => {
          const step = steps.find((s) => s.title === choice);
          if (step) void vscode.commands.executeCommand(step.command, ...step.args);
          else if (choice === 'Open in Browser') void openPullRequestInBrowser(services, ref);
        });
      return;
    }
    case 'cancelled':
      return;
  }
}
