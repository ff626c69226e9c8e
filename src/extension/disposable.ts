import type * as vscode from 'vscode';

/**
 * The one way a class here owns what it must let go of (listeners, emitters, watchers, timers):
 * it `_register`s each as it makes it, and `dispose()` disposes them all, once, newest first.
 * What is registered after disposal is disposed at once, so nothing outlives its owner.
 */
export abstract class Disposable implements vscode.Disposable {
  private readonly owned: vscode.Disposable[] = [];
  private disposed = false;

  get isDisposed(): boolean {
    return this.disposed;
  }

  protected _register<T extends vscode.Disposable>(disposable: T): T {
    if (this.disposed) disposable.dispose();
    else this.owned.push(disposable);
    return disposable;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const disposable of this.owned.splice(0).reverse()) disposable.dispose();
  }
}

/** A plain unsubscribe function (RunsModel.onDidChange) as a disposable. */
export const toDisposable = (dispose: () => void): vscode.Disposable => ({ dispose });
