import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import * as vscode from 'vscode';
import type { TextSpan } from '../../engine/domain/textSpan';
import { counted } from '../../engine/text/counted';
import type { UserFacingErrorData } from '../../protocol/engineProtocol';
import type { Services } from '../services';
import { plainText } from '../tree/presentation';

/** A plan file's problems, each with its place in the file where it is known (as the engine reports them). */
export type PlanFileProblems = NonNullable<UserFacingErrorData['planProblems']>;

/**
 * Plans Taskloom writes for the user to edit (an edit of a plan waiting for approval, a rejected
 * plan, the plan of a run to start again) live in the extension's storage, never in the repository.
 */
export async function storedPlanFile(services: Services, name: string, text: string): Promise<string> {
  const dir = join(services.context.globalStorageUri.fsPath, 'plans');
  await mkdir(dir, { recursive: true });
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

/** The range of a 1-based span; a problem with no place sits on the first line. */
export const spanRange = (span: TextSpan | null | undefined): vscode.Range =>
  span ? new vscode.Range(span.line - 1, span.column - 1, span.endLine - 1, span.endColumn - 1) : new vscode.Range(0, 0, 0, Number.MAX_SAFE_INTEGER);

/** A plan problem where it is in the file. */
export function planDiagnostic(message: string, span: TextSpan | null | undefined): vscode.Diagnostic {
  const diagnostic = new vscode.Diagnostic(spanRange(span), message, vscode.DiagnosticSeverity.Error);
  diagnostic.source = 'Taskloom plan';
  return diagnostic;
}

/**
 * Shows a plan file that cannot start a run as it is: the file opens with the cursor on its first
 * problem, every problem is squiggled where it is (and listed in Problems), and a message says how
 * many there are. Each save checks it again; once it is valid, a run can start from it (watchPlanEdits).
 */
export async function showPlanProblems(services: Services, folder: string, found: PlanFileProblems): Promise<void> {
  const uri = vscode.Uri.file(found.file);
  services.planDiagnostics.set(uri, found.problems.map((problem, i) => planDiagnostic(problem, found.spans[i])));
  services.planFixes.set(found.file, folder);
  const open = () => vscode.window.showTextDocument(uri, { preview: false, selection: spanRange(found.spans[0]) });
  await open();
  const first = found.problems[0] ? `: ${plainText(found.problems[0], 200)}` : '';
  const choice = await vscode.window.showWarningMessage(
    `Taskloom: the plan in ${basename(found.file)} has ${counted(found.problems.length, 'problem')}${first}. Fix ${found.problems.length === 1 ? 'it' : 'them'} and save: a run can then start from it.`,
    'Open Plan',
    'Show Problems',
  );
  if (choice === 'Open Plan') await open();
  if (choice === 'Show Problems') await vscode.commands.executeCommand('workbench.actions.view.problems');
}
