import * as vscode from 'vscode';

/** The "Taskloom" log channel, shared by the extension and the engine client (the engine's stderr lands here too). */
export const outputChannel = vscode.window.createOutputChannel('Taskloom', { log: true });
export const log = outputChannel;
