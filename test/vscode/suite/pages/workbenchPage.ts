// The workbench's own UI as the suites see it: notifications (toasts), the quick input, the
// Problems panel, the merge editor, the walkthrough and the trees.
import { click, pressKey, readShownTexts, readTexts, waitFor } from '../runnerControl';
import { until } from '../until';

/** A notification whose text contains `text` (a toast, or an entry in the notification centre). */
export class Notification {
  private readonly selector: string;

  constructor(text: string) {
    this.selector = `.notification-list-item:has-text(${JSON.stringify(text)})`;
  }

  shown(timeoutMs?: number): Promise<void> {
    return waitFor({ selector: this.selector, ...(timeoutMs ? { timeoutMs } : {}) });
  }

  async message(): Promise<string> {
    const [message] = await readTexts({ selector: `${this.selector} .notification-list-item-message` });
    return message ?? '';
  }

  /** The messages of every notification like it shown now. */
  messages(): Promise<string[]> {
    return readTexts({ selector: `${this.selector} .notification-list-item-message` });
  }

  buttons(): Promise<string[]> {
    return readTexts({ selector: `${this.selector} a.monaco-button` });
  }

  /** Its button labelled `label`. */
  press(label: string): Promise<void> {
    return click({ selector: `${this.selector} a.monaco-button:has-text(${JSON.stringify(label)})` });
  }

  /** The texts of every notification like it shown now. */
  all(): Promise<string[]> {
    return readTexts({ selector: this.selector });
  }
}

const QUICK_INPUT = '.quick-input-widget';

export const quickInput = {
  /** The input box is up (a showInputBox or a quick pick). */
  shown: () => waitFor({ selector: `${QUICK_INPUT} input` }),
  /** The quick input is up and says `text` (its title, prompt or a row). */
  saying: (text: string) => waitFor({ selector: `${QUICK_INPUT}:has-text(${JSON.stringify(text)})` }),
  rowShown: (text: string) => waitFor({ selector: `${QUICK_INPUT} .monaco-list-row:has-text(${JSON.stringify(text)})` }),
  /** Picks the row that says `text`. */
  pickRow: (text: string) => click({ selector: `${QUICK_INPUT} .monaco-list-row:has-text(${JSON.stringify(text)})` }),
};

export const mergeEditor = {
  /** One of the merge editor's two inputs (the sides being merged) shows `text`. */
  inputSaying: (text: string, timeoutMs = 30_000) => waitFor({ selector: `.merge-editor .code-view.input:has-text(${JSON.stringify(text)})`, timeoutMs }),
};

export const workbench = {
  /** The messages of the notifications on screen. */
  notificationTexts: () => readTexts({ selector: '.notification-list-item-message' }),
  /** The Problems panel's row that says `text`. */
  openProblem: (text: string) => click({ selector: `.markers-panel .monaco-list-row:has-text(${JSON.stringify(text)})` }),
  /** The editor's "cannot edit in read-only editor" hover. */
  readOnlyMessageShown: () => waitFor({ selector: '.monaco-editor-overlaymessage:has-text("read-only")' }),
  /** The open walkthrough, once it says `text`. */
  walkthroughSaying: (text: string) => waitFor({ selector: `.gettingStartedContainer:has-text(${JSON.stringify(text)})` }),
  /** The descriptions of the rows of every tree on screen (the Runs tree's task rows among them). */
  treeRowDescriptions: () => readTexts({ selector: '.monaco-list-row .label-description' }),
  /** The tree row that says `label` as it is drawn: how much of its label and of its description the view's width shows (1 whole). */
  treeRowShown: (label: string) => {
    const row = `.monaco-list-row:has-text(${JSON.stringify(label)})`;
    // Read in one go and again until both parts are there: a tree refresh redraws its rows, and
    // two reads apart could each see a different drawing (or none).
    return until(`the tree row "${label}" drawn`, async () => {
      const [name, description] = await readShownTexts({ selector: `${row} .label-name, ${row} .label-description` });
      return name && description ? { name, description } : undefined;
    }, 30_000);
  },
  /** The labels of the rows of every tree on screen. */
  treeRowLabels: () => readTexts({ selector: '.monaco-list-row .label-name' }),
  /** The titles of the editor tabs on screen. */
  editorTabTitles: () => readTexts({ selector: '.tabs-container .tab .label-name' }),
  /** A status bar item, once it says `text`. */
  statusBarSaying: (text: string, timeoutMs = 30_000) => waitFor({ selector: `.statusbar-item:has-text(${JSON.stringify(text)})`, timeoutMs }),
  /** A row of the Problems panel, once it says `text`. */
  problemShown: (text: string) => waitFor({ selector: `.markers-panel .monaco-list-row:has-text(${JSON.stringify(text)})` }),
  /** The texts of the status bar's items now. */
  statusBarTexts: () => readTexts({ selector: '.statusbar-item' }),
  /** What the Taskloom sidebar's Runs view shows now: its welcome text (when it has no rows) and its rows' labels. */
  runsViewWelcome: () => readTexts({ selector: '.pane:has(.pane-header:has-text("Runs")) .welcome-view-content' }),
  runsViewRows: () => readTexts({ selector: '.pane:has(.pane-header:has-text("Runs")) .monaco-list-row .label-name' }),
  /** The Explorer's first row (where a user's focus would be). */
  focusExplorer: () => click({ selector: '.explorer-folders-view .monaco-list-row' }),
  /**
   * What the context menu of the Runs view's row that says `text` offers, as a right-click opens it
   * (the enabled entries, top to bottom); the menu is closed again. A row with nothing to offer
   * opens none: `expectNone` waits for the menu a while and answers [] when none came.
   */
  async runsRowMenu(text: string, expectNone = false): Promise<string[]> {
    await click({ selector: `${RUNS_VIEW} .monaco-list-row:has-text(${JSON.stringify(text)})`, button: 'right' });
    const opened = waitFor({ selector: `${CONTEXT_MENU} .action-item`, ...(expectNone ? { timeoutMs: 5_000 } : {}) });
    if (expectNone && !(await opened.then(() => true, () => false))) return [];
    await opened;
    const items = await readTexts({ selector: `${CONTEXT_MENU} .action-item:not(.disabled) .action-label` });
    await pressKey('Escape');
    await waitFor({ selector: CONTEXT_MENU, state: 'hidden' });
    return items.map((item) => item.trim()).filter(Boolean);
  },
};

const RUNS_VIEW = '.pane:has(.pane-header:has-text("Runs"))';
const CONTEXT_MENU = '.context-view .monaco-menu';
