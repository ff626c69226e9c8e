// The run view as the suites see it: its webview's elements by what they are, so a change of
// markup in src/webview is fixed here once, not in every test that reads the view.
import { click, pressKey, readTexts, selectOption, typeText, waitFor, WEBVIEW_FRAMES, type PageTarget } from '../runnerControl';

type Tab = 'ledger' | 'timeline' | 'usage' | 'transcript';
type Choice = 'retry' | 'accept' | 'skip' | 'resolve' | 'continue';

const transcriptGroup = (title: string) => `.transcript-group:has(.transcript-group-title:has-text(${JSON.stringify(title)}))`;

const inView = (selector: string, timeoutMs?: number): PageTarget => ({ selector, frames: WEBVIEW_FRAMES, ...(timeoutMs ? { timeoutMs } : {}) });

/** The selectors of the run view's controls, for a test that clicks one through a helper of its own. */
export const RUN_VIEW = {
  taskButton: (taskId: string, choice: Choice) => `.task-control[data-control-task="${taskId}"] vscode-button[data-choice="${choice}"]`,
  deliveryButton: (how: 'apply' | 'pullRequest') => `.run-delivery vscode-button[data-choice="${how}"]`,
  approvePlanButton: '.plan-waiting vscode-button[data-choice="approve"]',
  cancelPlanButton: '.plan-waiting vscode-button[data-choice="cancel"]',
  planFindingButton: (taskId: string, fix: 'fill' | 'drop') => `.plan-finding[data-finding-task="${taskId}"] vscode-button[data-choice="${fix}"]`,
  nextStepButton: (step: 'resume' | 'treatAsAdvisory' | 'keepAsRequired' | 'cancelRun' | 'planAgain' | 'startWithPlan' | 'openRejectedPlan') => `.next-step vscode-button[data-choice="${step}"]`,
  restoreButton: (taskId: string) => `li.entry button.restore-snapshot[data-task="${taskId}"]`,
  chooseCandidateButton: (taskId: string, candidate: number) => `${candidateCard(taskId, candidate)} vscode-button[data-action="choose-candidate"]:not([disabled])`,
};

const candidateCard = (taskId: string, candidate: number) => `.candidates[data-candidates-task="${taskId}"] .candidate-card[data-candidate="${candidate}"]`;

export const runView = {
  click: (selector: string) => click(inView(selector)),
  showTab: (tab: Tab) => click(inView(`vscode-tab-header[data-tab="${tab}"]`)),

  /** The plan waiting for approval: its buttons, and its going once approved. */
  planShown: () => waitFor(inView(RUN_VIEW.approvePlanButton)),
  planButtons: () => readTexts(inView('.plan-waiting vscode-button')),
  planGone: () => waitFor({ ...inView('.plan-waiting'), state: 'detached' }),
  /** A task the plan leaves incomplete, with Fill In… / Drop Task; and whether Approve waits for it. */
  planFindingShown: (taskId: string) => waitFor(inView(`.plan-finding[data-finding-task="${taskId}"]`)),
  planFindingTexts: () => readTexts(inView('.plan-finding .control-text')),
  planFindingsGone: () => waitFor({ ...inView('.plan-finding'), state: 'detached' }),
  approveDisabledShown: () => waitFor(inView(`${RUN_VIEW.approvePlanButton}[disabled]`)),
  approveEnabledShown: () => waitFor(inView(`${RUN_VIEW.approvePlanButton}:not([disabled])`)),

  /** The way on from a stopped run: its words and its buttons. */
  nextStepShown: (timeoutMs?: number) => waitFor(inView('.next-step', timeoutMs)),
  nextStepTexts: () => readTexts(inView('.next-step .control-text')),
  nextStepButtons: () => readTexts(inView('.next-step vscode-button')),

  /** The plan graph. */
  graphTaskIds: () => readTexts(inView('svg.graph .node-id')),
  graphTexts: () => readTexts(inView('svg.graph text')),
  graphStates: () => readTexts(inView('svg.graph .node-state')),
  selectedNodeShown: () => waitFor(inView('svg.graph .node.selected')),

  /** The tasks the controls list (those waiting for a decision, the selected one first), and what they say of the rest. */
  controlTaskIds: () => readTexts(inView('.task-control .task-link')),
  controlsMore: () => readTexts(inView('.controls-more')),
  /** A completed run's next steps: its bar's buttons, the primary first, and its text. */
  deliveryButtons: () => readTexts(inView('.run-delivery vscode-button')),
  deliveryText: () => readTexts(inView('.run-delivery .control-text')),
  deliveryShown: (text: string) => waitFor(inView(`.run-delivery:has-text(${JSON.stringify(text)})`, 30_000)),

  /** The controls of the task selected in the graph. */
  selectedTaskLinks: () => readTexts(inView('.task-control.selected .task-link')),
  selectedTaskButtons: () => readTexts(inView('.task-control.selected vscode-button')),

  /** The header's status pill, once it says `text`. */
  statusShown: (text: string, timeoutMs?: number) => waitFor(inView(`.status-pill:has-text(${JSON.stringify(text)})`, timeoutMs)),
  /** The header's counts ("1/5 merged") and its note under the facts (why the run stopped, how it ended). */
  headerCounts: () => readTexts(inView('.run-facts .fact-count')),
  runNotes: () => readTexts(inView('.run-header .run-note')),
  /** How the gate judges the run: the baseline (and missed regressions) under the header's facts. */
  gateNoteShown: (text: string, timeoutMs?: number) => waitFor(inView(`.run-header .run-gate:has-text(${JSON.stringify(text)})`, timeoutMs)),
  gateNoteTexts: () => readTexts(inView('.run-header .run-gate')),

  /** The decisions ledger. */
  highlightedEntryShown: (seq: number) => waitFor(inView(`li.entry.highlight[data-seq="${seq}"]`)),
  highlightedEntrySummaries: () => readTexts(inView('li.entry.highlight .entry-summary')),
  entryDiff: (seq: number) => click(inView(`li.entry[data-seq="${seq}"] button[data-action="diff"]`)),
  gateOutput: () => click(inView('[data-action="gate-output"]')),
  /** A snapshot's Restore in the ledger: shown only on the snapshots of tasks that wait for you. */
  restoreShown: (taskId: string) => waitFor(inView(`li.entry button.restore-snapshot[data-task="${taskId}"]`)),
  restoreCount: async (taskId: string) => (await readTexts(inView(`li.entry button.restore-snapshot[data-task="${taskId}"]:visible`))).length,
  /** Every word the view holds (every tab's, the header's and the controls'). */
  allText: async () => (await readTexts(inView('body'))).join('\n'),

  /** The timeline. */
  integrationLabelShown: () => waitFor(inView('.integration-label')),
  integrationLabels: () => readTexts(inView('.integration-label')),
  /** The integration row's phases: its merges, its gates (passed or failed) and the after-merge fixes. */
  integrationMerges: () => readTexts(inView('.integration-row .step-merging')),
  integrationGates: () => readTexts(inView('.integration-row .step-gate')),
  integrationFixes: () => readTexts(inView('.integration-row .integration-fix')),
  /** The timeline's colour key, entry by entry. */
  timelineLegend: () => readTexts(inView('.tab-timeline .legend-item')),
  timelineCaptions: () => readTexts(inView('.timeline-caption')),
  zoomIn: () => click(inView('[data-timeline-zoom="in"]')),
  zoomLabels: () => readTexts(inView('.tab-timeline .zoom-label')),

  /** A task's candidates side by side: each card's words, the pick's, and the buttons a card offers. */
  candidatesShown: (taskId: string) => waitFor(inView(`.candidates[data-candidates-task="${taskId}"]`, 30_000)),
  candidateCardTexts: (taskId: string) => readTexts(inView(`.candidates[data-candidates-task="${taskId}"] .candidate-card`)),
  pickedCandidateReasons: (taskId: string) => readTexts(inView(`.candidates[data-candidates-task="${taskId}"] .candidate-card.picked .candidate-reasons`)),
  candidateButtons: (taskId: string, candidate: number) => readTexts(inView(`${candidateCard(taskId, candidate)} vscode-button`)),

  pullRequestTexts: () => readTexts(inView('.run-pull-request')),

  /** The view is drawn in a theme of this kind (VS Code marks a webview's body with it). */
  themeShown: (kind: 'light' | 'dark' | 'high-contrast') => waitFor(inView(`body.vscode-${kind}`)),

  /** The Transcript tab: the agent's lines, the call headings, and which task's calls it shows. */
  transcriptLineShown: (text: string, timeoutMs = 30_000) => waitFor(inView(`.transcript-text:text-is(${JSON.stringify(text)})`, timeoutMs)),
  transcriptLines: () => readTexts(inView('.transcript-text')),
  transcriptCallHeads: () => readTexts(inView('.transcript-call-head strong')),
  transcriptGroupTitles: () => readTexts(inView('.transcript-group-title')),
  /** Opens a call under an attempt's heading ("Attempt 2") by its heading ("critic"), as a click on it does. */
  openTranscriptCall: (groupTitle: string, call: string) => click(inView(`${transcriptGroup(groupTitle)} .transcript-call-head:has-text(${JSON.stringify(call)})`)),
  /** The call headings and lines under one attempt's heading ("Attempt 2"). */
  transcriptGroupTexts: (title: string) => readTexts(inView(`${transcriptGroup(title)} :is(.transcript-call-head strong, .transcript-text)`)),
  transcriptTaskPickerShown: () => waitFor(inView('select.transcript-task', 30_000)),
  pickTranscriptTask: (value: string) => selectOption({ ...inView('select.transcript-task'), value }),

  /** The message box under a task's transcript: type a message and press Enter, as a person does. */
  sendMessage: async (text: string) => {
    await click(inView('.message-box textarea:not([disabled])'));
    await typeText(text);
    await pressKey('Enter');
  },
  messageBoxReason: () => readTexts(inView('.message-box .message-reason')),
  messageBoxDisabledShown: () => waitFor(inView('.message-box textarea[disabled]', 30_000)),
};
