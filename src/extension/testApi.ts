import type * as vscode from 'vscode';
import { handleChatRequest, type ChatRequestParts, type ChatStream } from './chat/chatParticipant';
import type { Confirm } from './confirm';
import { toDisposable } from './disposable';
import type { RunViewTap } from './runView/runViewPanel';
import type { Services } from './services';

/**
 * What the extension hands to the in-VS-Code tests and the benchmark, and only to them: activate
 * returns it when VS Code runs the extension under test (ExtensionMode.Test), never to another
 * extension. No command takes an argument only a test needs; a test reaches in through here.
 */
export interface TaskloomTestApi {
  services: Services;
  activationMs: number;
  /** Answers the modal confirmations in the user's place until disposed. */
  answerConfirmations(confirm: Confirm): vscode.Disposable;
  /** Sees what the run views and their webviews say to each other until disposed. */
  tapRunViews(tap: RunViewTap): vscode.Disposable;
  /** The @taskloom participant's handler, for a window whose VS Code shows no chat view. */
  handleChatRequest(request: ChatRequestParts, stream: ChatStream, token: vscode.CancellationToken): Promise<vscode.ChatResult>;
}

export function testApi(services: Services, activationMs: number): TaskloomTestApi {
  return {
    services,
    activationMs,
    answerConfirmations(confirm) {
      const previous = services.confirm;
      services.confirm = confirm;
      return toDisposable(() => (services.confirm = previous));
    },
    tapRunViews(tap) {
      const { runViews } = services;
      const previous = runViews.tap;
      runViews.tap = tap;
      return toDisposable(() => (runViews.tap = previous));
    },
    handleChatRequest: (request, stream, token) => handleChatRequest(services, request, stream, token),
  };
}
