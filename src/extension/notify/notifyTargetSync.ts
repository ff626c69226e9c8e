import * as vscode from 'vscode';
import { SetNotifyTargetsRequest } from '../../protocol/engineProtocol';
import type { EngineClient, SendRequest } from '../connection/engineClient';
import { showError } from '../connection/userErrors';
import { Disposable } from '../disposable';
import { resolveNotifyTargets, secretKey } from './notifyTargets';

/**
 * Keeps the engine's notification targets those of `taskloom.notify`: sent to an engine as it
 * starts (before any other request), and again when the setting or one of its secrets changes.
 * The URLs go to the engine process only: never to the output channel or a file.
 */
export class NotifyTargetSync extends Disposable {
  private lastProblems = '';

  constructor(private readonly secrets: vscode.SecretStorage) {
    super();
  }

  async sendTo(send: SendRequest): Promise<void> {
    const { urls, problems } = await resolveNotifyTargets(this.secrets);
    this.warnOnce(problems);
    await send(SetNotifyTargetsRequest.type, { targets: urls });
  }

  follow(engine: EngineClient): void {
    const resend = () => {
      if (engine.isRunning) void this.sendTo((type, params) => engine.request(type, params)).catch((error: unknown) => showError('use the notification targets', error));
    };
    this._register(vscode.workspace.onDidChangeConfiguration((change) => change.affectsConfiguration('taskloom.notify') && resend()));
    this._register(this.secrets.onDidChange((change) => change.key.startsWith(secretKey('')) && resend()));
  }

  /** Said when what cannot be used changes, not at every engine start. */
  private warnOnce(problems: string[]): void {
    const text = problems.join('; ');
    if (text && text !== this.lastProblems) void vscode.window.showWarningMessage(`Taskloom: no word goes to ${problems.length === 1 ? 'one notification target' : `${problems.length} notification targets`}: ${text}`);
    this.lastProblems = text;
  }
}
