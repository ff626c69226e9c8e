import type * as vscode from 'vscode';
import type { RunViewFocus } from '../../../src/protocol/webviewMessages';
import type { RunViewPanel } from '../../../src/extension/runView/runViewPanel';
import type { TaskloomTestApi } from '../../../src/extension/testApi';

/** What one run view has told its webview and heard back, as a test reads it. */
export interface RunViewSeen {
  /** The last seq the webview was sent (a state or events). */
  sentSeq: number;
  /** The seq of the last state the webview reported drawn. */
  renderedSeq: number;
  /** When (performance.now()) the webview first reported a drawn run. */
  firstRenderedAt: number | undefined;
  /** Where the webview last reported a link landed; cleared when a new link is sent. */
  lastFocused: (RunViewFocus & { found: boolean }) | undefined;
}

/**
 * Listens to every run view through the test API's tap (from the moment it is made), so the
 * suites wait on what the webview was sent and drew instead of on fields of the production panel.
 */
export class RunViewWatch implements vscode.Disposable {
  private readonly seen = new WeakMap<RunViewPanel, RunViewSeen>();
  private readonly tap: vscode.Disposable;

  constructor(private readonly api: TaskloomTestApi) {
    this.tap = api.tapRunViews({
      toWebview: (view, message) => {
        const seen = this.of(view);
        if (message.type === 'state') seen.sentSeq = message.state.lastSeq;
        if (message.type === 'events') seen.sentSeq = message.events[message.events.length - 1]?.seq ?? seen.sentSeq;
        if (message.type === 'focus') seen.lastFocused = undefined;
      },
      fromWebview: (view, message) => {
        const seen = this.of(view);
        if (message.type === 'rendered') {
          seen.renderedSeq = message.seq;
          seen.firstRenderedAt ??= performance.now();
        }
        if (message.type === 'focused') {
          seen.lastFocused = { found: message.found, ...(message.taskId !== undefined ? { taskId: message.taskId } : {}), ...(message.seq !== undefined ? { seq: message.seq } : {}) };
        }
      },
    });
  }

  /** The open run view of the run, if any. */
  panel(runId: string): RunViewPanel | undefined {
    return this.api.services.runViews.panels().find((p) => p.runId === runId);
  }

  /** The run's open view once its webview drew the run (with `seq`: and was sent the run up to that seq). */
  drawn(runId: string, seq?: number): RunViewPanel | undefined {
    const view = this.panel(runId);
    if (!view) return undefined;
    const seen = this.of(view);
    return seen.renderedSeq > 0 && (seq === undefined || seen.sentSeq === seq) ? view : undefined;
  }

  /** What a view has been through (zeros when it said nothing yet). */
  of(view: RunViewPanel): RunViewSeen {
    let seen = this.seen.get(view);
    if (!seen) {
      seen = { sentSeq: 0, renderedSeq: 0, firstRenderedAt: undefined, lastFocused: undefined };
      this.seen.set(view, seen);
    }
    return seen;
  }

  dispose(): void {
    this.tap.dispose();
  }
}

let watch: RunViewWatch | undefined;

/** The suite's one watch of the run views (the test API has one tap), made on first use. */
export function watchRunViews(api: TaskloomTestApi): RunViewWatch {
  return (watch ??= new RunViewWatch(api));
}
