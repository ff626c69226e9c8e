import * as vscode from 'vscode';
import type { CommandId } from './commandIds';

/**
 * Runs a registered Taskloom command: how a view, a notification or a flow hands an intent to the
 * command module that handles it (views never import command modules: docs/architecture.md).
 */
export const runCommand = (id: CommandId, ...args: unknown[]): Thenable<unknown> => vscode.commands.executeCommand(id, ...args);

/** A click (a tree row, the status bar) or a chat button that runs a registered Taskloom command. */
export const commandCall = (command: CommandId, title: string, ...args: unknown[]): vscode.Command => ({ command, title, arguments: args });

/** A link that runs a registered Taskloom command, with its arguments (a diagnostic's code, a Markdown string). */
export const commandUri = (id: CommandId, ...args: unknown[]): vscode.Uri => vscode.Uri.parse(`command:${id}?${encodeURIComponent(JSON.stringify(args))}`);
