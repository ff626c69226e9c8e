import * as vscode from 'vscode';

const CHANNEL = 'Taskloom';

/** The "Taskloom" log channel, shared by the extension and the engine client (the engine's stderr lands here too). */
export const outputChannel = vscode.window.createOutputChannel(CHANNEL, { log: true });
export const log = outputChannel;

let file: string | undefined;

/** Activation tells where the channel is kept: VS Code writes a log channel to `<the extension's logUri>/<its name>.log`. */
export function keepLogIn(logUri: vscode.Uri): void {
  file = vscode.Uri.joinPath(logUri, `${CHANNEL}.log`).fsPath;
}

/** The file the channel's lines are kept in, for an error to say where its details are. */
export const logFile = (): string | undefined => file;
