// The run view: header, the decisions waiting (controls) and five tabs (graph, ledger, timeline,
// usage, transcript) over one RunModel. Messages fold into the model as they arrive; drawing happens
// at most once per animation frame, and only for the tab in view (the others catch up when they are
// opened). The first state is a first page (protocol/runViewPages.ts): a tab that needs what it
// left out asks for it when it is shown.
import type { RunFacts } from '../../engine/domain/runActions';
import { LIVE_RUN_STATUSES, type RunState } from '../../engine/domain/runState';
import { countTasks } from '../../engine/domain/taskCounts';
import type { RunViewFocus, RunViewPersistedState, ToWebview } from '../../protocol/webviewMessages';
import { listenForActions } from './actionListener';
import { ControlsView, planAwaitingApproval } from './controlsView';
import { h, icon } from './dom';
import { GraphView } from './graphView';
import { HeaderView } from './headerView';
import { LedgerView } from './ledgerView';
import { RunModel } from './runModel';
import { TimelineView } from './timelineView';
import { TranscriptView } from './transcriptView';
import { UsageView } from './usageView';
import type { RunViewHost } from './vscodeApi';

type Tab = NonNullable<RunViewPersistedState['tab']>;
const TABS: readonly Tab[] = ['graph', 'ledger', 'timeline', 'usage', 'transcript'];
const TAB_LOOK: Record<Tab, { label: string; icon: string }> = {
  graph: { label: 'Graph', icon: 'type-hierarchy' },
  ledger: { label: 'Decisions', icon: 'law' },
  timeline: { label: 'Timeline', icon: 'history' },
  usage: { label: 'Usage', icon: 'graph' },
  transcript: { label: 'Transcript', icon: 'terminal' },
};
/** Tabs drawn from the tasks' histories, which a first page leaves out. */
const NEEDS_HISTORIES: ReadonlySet<Tab> = new Set(['timeline', 'transcript']);
/** While a run goes on, the timeline's open bars grow this often even without events. */
const TIMELINE_TICK_MS = 2000;

interface TabView {
  readonly element: HTMLElement;
  render(state: RunState): void;
}

export class RunViewApp {
  private readonly model = new RunModel();
  private readonly header = new HeaderView();
  private readonly controls = new ControlsView();
  private readonly graph = new GraphView();
  private readonly ledger: LedgerView;
  /** The task picked in the graph, the timeline, the controls or by a link. */
  private selected: string | undefined;
  /** A deep link to carry out once the run is drawn. */
  private pendingFocus: RunViewFocus | undefined;
  private readonly views: Record<Tab, TabView>;
  private readonly counters: Partial<Record<Tab, HTMLElement>> = {};
  private readonly tabs: HTMLElement;
  private tab: Tab;
  private frame = 0;
  /** The model version each part last drew; -1 forces a draw. */
  private readonly drawn = new Map<Tab | 'header', number>();
  private readonly scrollByTab = new Map<Tab, { top: number; left: number }>();
  /** An engine drives the run (the extension says when not): until told otherwise, the status is believed. */
  private driven = true;
  /** Whether a pull request could be pushed (the extension says); unknown until then. */
  private hasPullRequestRemote: boolean | undefined;
  private awaitingState = true;
  /** A `state` arrived and has not been drawn yet: the next draw reports `rendered`. */
  private paintPending = false;
  private readonly transcript: TranscriptView;
  /** What was asked for since the last state (each at most once). */
  private readonly asked = new Set<'decisions' | 'histories'>();

  constructor(
    private readonly root: HTMLElement,
    private readonly host: RunViewHost,
  ) {
    const saved = host.persisted();
    this.tab = saved.tab && TABS.includes(saved.tab) ? saved.tab : 'graph';
    const timeline = new TimelineView();
    this.ledger = new LedgerView(saved.search ?? '', (search) => host.persist({ search }), () => this.invalidate('ledger'), {
      omitted: () => this.model.decisionsOmitted,
      loadAll: () => this.ask('decisions'),
    });
    this.transcript = new TranscriptView(
      saved.transcriptTask,
      (task) => host.persist({ transcriptTask: task }),
      (calls) => host.post({ type: 'loadTranscript', calls }),
      () => this.invalidate('transcript'),
      (taskId, text) => host.post({ type: 'sendToTask', taskId, text }),
    );
    this.views = {
      graph: this.graph,
      ledger: this.ledger,
      timeline: { element: timeline.element, render: (state) => timeline.render(state, this.now(state), this.driven) },
      usage: new UsageView(),
      transcript: { element: this.transcript.element, render: (state) => this.transcript.render(state, this.live(state)) },
    };

    const headers = TABS.map((tab) => {
      const counter = tab === 'graph' || tab === 'ledger' ? h('vscode-badge', { variant: 'counter', slot: 'content-after' }) : null;
      if (counter) this.counters[tab] = counter;
      return h('vscode-tab-header', { 'data-tab': tab }, icon(TAB_LOOK[tab].icon, 'tab-icon'), TAB_LOOK[tab].label, counter);
    });
    const panels = TABS.map((tab) => h('vscode-tab-panel', { class: `tab-panel tab-${tab}` }, this.views[tab].element));
    this.tabs = h('vscode-tabs', { class: 'run-tabs', 'selected-index': TABS.indexOf(this.tab) }, ...headers, ...panels);
    this.tabs.addEventListener('vsc-tabs-select', (event) => {
      const tab = TABS[(event as CustomEvent<{ selectedIndex: number }>).detail.selectedIndex];
      if (tab) this.selectTab(tab);
    });
    root.replaceChildren(h('p', { class: 'loading' }, icon('loading', 'codicon-modifier-spin'), ' Loading the run…'));
    listenForActions(root, host.post, (el) => {
      const taskId = el.getAttribute('data-action') === 'reveal' ? el.getAttribute('data-task') : null;
      if (taskId !== null) this.select(taskId);
    });

    new ResizeObserver(() => this.invalidate('timeline')).observe(timeline.element);
    setInterval(() => {
      const state = this.model.state;
      if (state && this.tab === 'timeline' && this.live(state)) this.invalidate('timeline');
    }, TIMELINE_TICK_MS);
  }

  receive(message: ToWebview): void {
    switch (message.type) {
      case 'state':
        this.model.setState(message.state, message.omitted);
        this.asked.clear();
        this.awaitingState = false;
        this.paintPending = true;
        this.host.persist({ folder: message.state.repoRoot, runId: message.state.runId });
        if (!this.root.contains(this.tabs)) this.root.replaceChildren(this.header.element, this.controls.element, this.tabs);
        // A plan waiting for approval is approved on its graph.
        if (planAwaitingApproval(message.state)) this.showTab('graph');
        break;
      case 'focus':
        this.pendingFocus = { ...(message.taskId !== undefined ? { taskId: message.taskId } : {}), ...(message.seq !== undefined ? { seq: message.seq } : {}) };
        break;
      case 'events': {
        this.transcript.noteEvents(message.events);
        const outcome = this.model.applyEvents(message.events);
        if (outcome.resync) this.resync();
        if (!outcome.changed) return;
        break;
      }
      case 'decisions':
        if (!this.model.setDecisions(message.seq, message.decisions)) this.resync();
        break;
      case 'histories':
        if (!this.model.setHistories(message.seq, message.histories)) this.resync();
        break;
      case 'transcript':
        this.transcript.receive(message.calls);
        this.invalidate('transcript');
        return;
      case 'driven':
        // Every part words the steps under way differently now: all redraw.
        this.driven = message.driven;
        this.header.driven = this.graph.driven = message.driven;
        this.drawn.clear();
        break;
      case 'repository':
        this.hasPullRequestRemote = message.hasPullRequestRemote;
        this.drawn.delete('header');
        break;
    }
    this.schedule();
  }

  /** Missing or unfoldable events, or an answer that does not fit the state: the extension answers `ready` with the whole state. */
  private resync(): void {
    if (this.awaitingState) return;
    this.awaitingState = true;
    this.host.post({ type: 'ready' });
  }

  /** Asks once per state for what the first page left out. */
  private ask(what: 'decisions' | 'histories'): void {
    if (this.asked.has(what) || this.awaitingState) return;
    this.asked.add(what);
    this.host.post(what === 'decisions' ? { type: 'loadDecisions' } : { type: 'loadHistories' });
  }

  private invalidate(part: Tab): void {
    this.drawn.set(part, -1);
    this.schedule();
  }

  private schedule(): void {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.draw());
  }

  private draw(): void {
    this.frame = 0;
    const state = this.model.state;
    if (!state) return;
    const version = this.model.version;
    if (this.drawn.get('header') !== version) {
      this.header.render(state);
      this.controls.render(this.facts(state), this.selected);
      this.counters.graph!.textContent = String(state.taskOrder.length);
      this.counters.ledger!.textContent = (state.decisions.length + this.model.decisionsOmitted).toLocaleString('en-US');
      this.drawn.set('header', version);
    }
    const waiting = NEEDS_HISTORIES.has(this.tab) && this.model.historiesMissing;
    this.views[this.tab].element.classList.toggle('awaiting-history', waiting);
    if (waiting) this.ask('histories');
    else if (this.drawn.get(this.tab) !== version) {
      this.views[this.tab].render(state);
      this.drawn.set(this.tab, version);
    }
    if (this.paintPending) {
      this.paintPending = false;
      this.host.post({ type: 'rendered', seq: state.lastSeq });
    }
    if (this.pendingFocus) this.land(state, this.pendingFocus);
  }

  /** Carries out a deep link: a ledger entry (its tab, scrolled to, highlighted), else a task (selected in the graph). */
  private land(state: RunState, focus: RunViewFocus): void {
    this.pendingFocus = undefined;
    let found: boolean;
    if (focus.seq !== undefined) {
      this.showTab('ledger');
      found = this.ledger.reveal(state, focus.seq);
    } else if (focus.taskId !== undefined && state.tasks[focus.taskId]) {
      this.select(focus.taskId);
      this.showTab('graph');
      found = this.graph.reveal(focus.taskId);
    } else found = false;
    this.host.post({ type: 'focused', found, ...focus });
  }

  private select(taskId: string): void {
    if (this.selected === taskId) return;
    this.selected = taskId;
    this.graph.select(taskId);
    const state = this.model.state;
    if (state) this.controls.render(this.facts(state), taskId);
  }

  /** What the rules of the run's actions know here (domain/runActions.ts), as the tree and the commands know it. */
  private facts(state: RunState): RunFacts & { state: RunState } {
    const { merged, skipped, total } = countTasks(state);
    return {
      status: state.status,
      driven: this.driven && LIVE_RUN_STATUSES.has(state.status),
      state,
      total,
      unfinished: total - merged - skipped,
      planApproved: state.planApproved,
      ...(this.hasPullRequestRemote !== undefined ? { hasRemote: this.hasPullRequestRemote } : {}),
    };
  }

  /** Selects a tab from code (a link, a plan waiting), as a click on its header would. */
  private showTab(tab: Tab): void {
    (this.tabs as HTMLElement & { selectedIndex: number }).selectedIndex = TABS.indexOf(tab);
    this.selectTab(tab);
  }

  private selectTab(tab: Tab): void {
    if (tab === this.tab) return;
    const old = this.scroller(this.tab);
    if (old) this.scrollByTab.set(this.tab, { top: old.scrollTop, left: old.scrollLeft });
    this.tab = tab;
    this.host.persist({ tab });
    this.draw();
    const scroller = this.scroller(tab);
    const saved = this.scrollByTab.get(tab);
    if (scroller && saved) {
      scroller.scrollTop = saved.top;
      scroller.scrollLeft = saved.left;
    }
  }

  private scroller(tab: Tab): HTMLElement | null {
    return this.views[tab].element.querySelector('.scroll');
  }

  /** Working now: a live status and an engine driving it (a dead engine's run keeps its status until resumed). */
  private live(state: RunState): boolean {
    return this.driven && LIVE_RUN_STATUSES.has(state.status);
  }

  private now(state: RunState): number {
    return this.live(state) ? Date.now() : Date.parse(state.updatedAt);
  }
}
