// The part of the `vscode` module the extension's tree providers and notifications use, for unit
// tests outside VS Code: importing this file first makes `import * as vscode from 'vscode'` load it.
// Plain classes that keep what they are given, so a test reads a tree item's label or icon; the
// window and the commands record what they were asked (`shown`, `executed`, the channel's `lines`)
// and a notification is answered by `answer` (nothing chosen unless a test says).
import { join } from 'node:path';
import Module from 'node:module';

class EventEmitter<T> {
  private listeners: Array<(value: T) => void> = [];
  readonly event = (listener: (value: T) => void) => {
    this.listeners.push(listener);
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  };
  fire(value: T): void {
    for (const listener of this.listeners) listener(value);
  }
  dispose(): void {
    this.listeners = [];
  }
}

class ThemeIcon {
  static readonly Folder = new ThemeIcon('folder');
  constructor(
    readonly id: string,
    readonly color?: ThemeColor,
  ) {}
}

class ThemeColor {
  constructor(readonly id: string) {}
}

class TreeItem {
  description?: string;
  tooltip?: unknown;
  iconPath?: unknown;
  id?: string;
  contextValue?: string;
  command?: unknown;
  constructor(
    public label: string,
    public collapsibleState = 0,
  ) {}
}

class MarkdownString {
  value = '';
  appendText(text: string): this {
    this.value += text;
    return this;
  }
  appendMarkdown(text: string): this {
    this.value += text;
    return this;
  }
}

class CancellationError extends Error {}

class Uri {
  private constructor(readonly fsPath: string) {}
  static file(path: string): Uri {
    return new Uri(path);
  }
  static joinPath(base: Uri, ...parts: string[]): Uri {
    return new Uri(join(base.fsPath, ...parts));
  }
}

export interface ShownNotification {
  severity: 'error' | 'warning' | 'information';
  text: string;
  items: unknown[];
}

/** What the window showed, and how a test answers: `answer` picks one of the offered items (or none). */
export const window = {
  shown: [] as ShownNotification[],
  answer: (_shown: ShownNotification): unknown => undefined,
  channel: {
    lines: [] as Array<{ level: string; text: string }>,
    shown: 0,
    info(text: string) {
      this.lines.push({ level: 'info', text });
    },
    warn(text: string) {
      this.lines.push({ level: 'warn', text });
    },
    error(text: string) {
      this.lines.push({ level: 'error', text });
    },
    show() {
      this.shown += 1;
    },
    dispose() {},
  },
  createOutputChannel() {
    return window.channel;
  },
  showErrorMessage: (text: string, ...items: unknown[]) => notify('error', text, items),
  showWarningMessage: (text: string, ...items: unknown[]) => notify('warning', text, items),
  showInformationMessage: (text: string, ...items: unknown[]) => notify('information', text, items),
};

function notify(severity: ShownNotification['severity'], text: string, items: unknown[]): Promise<unknown> {
  const shown = { severity, text, items };
  window.shown.push(shown);
  return Promise.resolve(window.answer(shown));
}

/** Every executeCommand call, in order. */
export const commands = {
  executed: [] as unknown[][],
  async executeCommand(...args: unknown[]): Promise<unknown> {
    commands.executed.push(args);
    return undefined;
  },
};

const vscode = {
  EventEmitter,
  CancellationError,
  Uri,
  window,
  commands,
  ThemeIcon,
  ThemeColor,
  TreeItem,
  MarkdownString,
  TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
  workspace: { asRelativePath: (path: string) => path },
};

const STUB_ID = 'vscode-unit-test-stub';
type Resolve = (request: string, ...rest: unknown[]) => string;
const loader = Module as unknown as { _resolveFilename: Resolve; _cache: Record<string, unknown> };
const resolve = loader._resolveFilename;
loader._resolveFilename = function (request, ...rest) {
  return request === 'vscode' ? STUB_ID : resolve.call(this, request, ...rest);
};
loader._cache[STUB_ID] = { id: STUB_ID, filename: STUB_ID, loaded: true, exports: vscode };
