import * as vscode from 'vscode';
import { Disposable } from '../disposable';

/**
 * `taskloom-text:/<name>?<id>`: text Taskloom shows (a gate's output), as a read-only document:
 * nothing to save, no "Untitled" tab asking to be kept. The texts live for the window; a tab
 * restored after a reload says where to open it again.
 */
const SCHEME = 'taskloom-text';
/** The texts of the last few documents shown; gate output can be megabytes. */
const KEPT = 20;

export class ReadOnlyTexts extends Disposable {
  private readonly texts = new Map<string, string>();
  private next = 0;

  constructor() {
    super();
    this._register(
      vscode.workspace.registerTextDocumentContentProvider(SCHEME, {
        provideTextDocumentContent: (uri) =>
          this.texts.get(uri.query) ?? 'This output was shown in an earlier window. Open it again from the run view or the task.',
      }),
    );
  }

  /** Opens `text` read-only in a preview tab titled `name` (its extension picks the language, e.g. `.log`). */
  async show(name: string, text: string): Promise<vscode.TextEditor> {
    const id = String(++this.next);
    this.texts.set(id, text);
    for (const old of this.texts.keys()) if (this.texts.size > KEPT) this.texts.delete(old);
    const uri = vscode.Uri.from({ scheme: SCHEME, path: `/${name.replaceAll('/', '∕')}`, query: id });
    return vscode.window.showTextDocument(uri, { preview: true });
  }
}
