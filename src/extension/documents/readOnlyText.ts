import * as vscode from 'vscode';

/**
 * `taskloom-text:/<name>?<id>`: text Taskloom shows (a gate's output), as a read-only document:
 * nothing to save, no "Untitled" tab asking to be kept. The texts live for the window; a tab
 * restored after a reload says where to open it again.
 */
const SCHEME = 'taskloom-text';
/** The texts of the last few documents shown; gate output can be megabytes. */
const KEPT = 20;
const texts = new Map<string, string>();
let next = 0;

export function registerReadOnlyText(): vscode.Disposable {
  return vscode.workspace.registerTextDocumentContentProvider(SCHEME, {
    provideTextDocumentContent: (uri) =>
      texts.get(uri.query) ?? 'This output was shown in an earlier window. Open it again from the run view or the task.',
  });
}

/** Opens `text` read-only in a preview tab titled `name` (its extension picks the language, e.g. `.log`). */
export async function showReadOnlyText(name: string, text: string): Promise<vscode.TextEditor> {
  const id = String(++next);
  texts.set(id, text);
  for (const old of texts.keys()) if (texts.size > KEPT) texts.delete(old);
  const uri = vscode.Uri.from({ scheme: SCHEME, path: `/${name.replaceAll('/', '∕')}`, query: id });
  return vscode.window.showTextDocument(uri, { preview: true });
}
