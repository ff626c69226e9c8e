import * as vscode from 'vscode';

/**
 * Asks the user, in a modal, to agree to `action` (the button's label); true when they chose it.
 * Every confirmation of the extension goes through the one in Services, so no command takes an
 * argument that skips it; the in-VS-Code tests answer in the user's place through the test API.
 */
export type Confirm = (message: string, detail: string, action: string) => Promise<boolean>;

export const modalConfirm: Confirm = async (message, detail, action) =>
  (await vscode.window.showWarningMessage(message, { modal: true, detail }, action)) === action;
