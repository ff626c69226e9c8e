// The part of the `vscode` module the extension's tree providers use, for unit tests outside
// VS Code: importing this file first makes `import * as vscode from 'vscode'` load it. Plain
// classes that keep what they are given, so a test reads a tree item's label or icon.
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

const vscode = {
  EventEmitter,
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
