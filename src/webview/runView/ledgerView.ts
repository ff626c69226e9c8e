// The decisions ledger: newest first, searchable, each entry linked to its task, its diff and
// (for gate decisions) the gate output. At most LEDGER_PAGE_SIZE entries are in the DOM. A first
// page holds only the newest decisions: a search asks for the others (`paging`).
import type { Decision, RunState } from '../../engine/domain/runState';
import { actionAttrs } from './actions';
import { afterLayout, centerIn, h, icon } from './dom';
import { formatClock } from '../../engine/text/clock';
import { filterDecisions, LEDGER_PAGE_SIZE, matches, parseLedgerQuery } from './ledgerFilter';
import { DECISION_ICON, decisionTone, toneClass } from './stateStyle';
import { displayText, oneLine } from './text';
import { counted } from '../../engine/text/counted';
import { wordDecision } from '../../engine/text/decisionWords';
import { isWaitingForHuman } from '../../engine/domain/taskStates';
import { baseName, judgementTags } from '../../engine/text/gateWords';

const SEARCH_DELAY_MS = 150;

/** The decisions the state was sent without (a first page's older ones), and how to get them. */
export interface LedgerPaging {
  omitted(): number;
  loadAll(): void;
}

interface Rendered {
  decisions: Decision[];
  /** How many of `decisions` the list reflects. */
  length: number;
  query: string;
  matching: number;
}
const DETAIL_LINES = 40;

export class LedgerView {
  readonly element = h('div', { class: 'panel-body' });
  private readonly search = h('vscode-textfield', {
    class: 'ledger-search',
    type: 'search',
    placeholder: 'Filter: words, task:ID, kind:gate|critic|human|queue|merge|conflict|overlap|plan|run',
    'aria-label': 'Filter the decisions',
  });
  private readonly count = h('span', { class: 'muted ledger-count', 'aria-live': 'polite' });
  private readonly scroller = h('div', { class: 'scroll ledger-scroll', tabindex: 0 });
  private readonly list = h('ol', { class: 'ledger' });
  private readonly more = h('p', { class: 'ledger-more' });
  private query = '';
  private rendered: Rendered | undefined;
  /** The tasks waiting for a person now: their snapshots can be restored. */
  private waiting = new Set<string>();
  /** How the run's base is named in a gate's tags ("already failing on main"). */
  private base = 'the base';
  // Entries are built once per decision object; a batch of events only adds the new ones.
  private readonly entries = new WeakMap<Decision, HTMLElement>();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    initialQuery: string,
    private readonly onQueryChange: (query: string) => void,
    private readonly requestRender: () => void,
    private readonly paging: LedgerPaging = { omitted: () => 0, loadAll: () => {} },
  ) {
    this.query = initialQuery;
    (this.search as HTMLElement & { value: string }).value = initialQuery;
    this.search.prepend(h('span', { slot: 'content-before', class: 'codicon codicon-search search-icon', 'aria-hidden': 'true' }));
    this.search.addEventListener('input', () => {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.setQuery((this.search as HTMLElement & { value: string }).value), SEARCH_DELAY_MS);
    });
    this.element.append(h('div', { class: 'toolbar' }, this.search, this.count), this.scroller);
    this.scroller.append(this.list, this.more);
  }

  private setQuery(query: string): void {
    if (query === this.query) return;
    this.query = query;
    this.onQueryChange(query);
    this.scroller.scrollTop = 0;
    this.requestRender();
  }

  render(state: RunState): void {
    this.base = baseName(state);
    this.showApplicable(state);
    const { decisions } = state;
    // A search must see every decision, not only the first page's.
    if (this.query.trim() && this.paging.omitted() > 0) this.paging.loadAll();
    const r = this.rendered;
    if (r && r.decisions === decisions && r.query === this.query && decisions.length >= r.length) {
      if (decisions.length > r.length) this.addNewest(r);
      return;
    }
    const page = filterDecisions(decisions, this.query);
    this.rendered = { decisions, length: decisions.length, query: this.query, matching: page.matching };
    const anchor = this.scroller.scrollTop > 0 ? this.visibleAnchor() : undefined;
    this.list.replaceChildren(...page.shown.map((d) => this.entryFor(d)));
    if (anchor) this.restoreAnchor(anchor);
    this.showCounts();
  }

  /** Restore shows on the snapshots of tasks that wait for a person, whose worktree nothing else touches. */
  private showApplicable(state: RunState): void {
    this.waiting = new Set(state.taskOrder.filter((id) => isWaitingForHuman(state.tasks[id]!.state)));
    this.showRestoreIn(this.list);
  }

  private showRestoreIn(root: ParentNode): void {
    for (const button of root.querySelectorAll<HTMLElement>('.restore-snapshot')) button.hidden = !this.waiting.has(button.getAttribute('data-task') ?? '');
  }

  /** A batch of events only appended decisions: put the matching new ones on top, drop the oldest beyond the page. */
  private addNewest(r: Rendered): void {
    const query = parseLedgerQuery(this.query);
    const fresh: HTMLElement[] = [];
    for (let i = r.decisions.length - 1; i >= r.length; i--) {
      const d = r.decisions[i]!;
      if (!matches(d, query)) continue;
      r.matching++;
      if (fresh.length < LEDGER_PAGE_SIZE) fresh.push(this.entryFor(d));
    }
    r.length = r.decisions.length;
    if (fresh.length) {
      const anchor = this.scroller.scrollTop > 0 ? this.visibleAnchor() : undefined;
      this.list.querySelector(':scope > li.empty')?.remove();
      this.list.prepend(...fresh);
      while (this.list.children.length > LEDGER_PAGE_SIZE) this.list.lastElementChild!.remove();
      if (anchor) this.restoreAnchor(anchor);
    }
    this.showCounts();
  }

  private showCounts(): void {
    const r = this.rendered!;
    const omitted = this.paging.omitted();
    const total = (r.decisions.length + omitted).toLocaleString('en-US');
    const searched = omitted > 0 ? ` (in the newest ${r.decisions.length.toLocaleString('en-US')}; loading the others…)` : '';
    this.count.textContent = this.query.trim() ? `${r.matching.toLocaleString('en-US')} of ${total} decisions${searched}` : `${total} decisions`;
    // Unfiltered, every decision a first page left out is an older entry not shown.
    const hidden = r.matching + (this.query.trim() ? 0 : omitted) - Math.min(r.matching, LEDGER_PAGE_SIZE);
    this.more.textContent =
      hidden > 0
        ? `${hidden.toLocaleString('en-US')} older ${hidden === 1 ? 'entry' : 'entries'} not shown: the newest ${LEDGER_PAGE_SIZE} matches are listed — refine the search to find others.`
        : '';
    this.more.hidden = hidden <= 0;
    if (!r.matching) this.list.replaceChildren(h('li', { class: 'empty' }, this.query.trim() ? 'No decision matches the filter.' : 'No decisions yet.'));
  }

  private entryFor(d: Decision): HTMLElement {
    let el = this.entries.get(d);
    if (!el) {
      el = buildEntry(d, this.base);
      this.entries.set(d, el);
    }
    this.showRestoreIn(el);
    return el;
  }

  /**
   * Scrolls to entry `seq` and highlights it (a deep link). A filter that hides it is cleared; an
   * entry older than the page is put on top of it, marked. False when the run has no such entry.
   */
  reveal(state: RunState, seq: number): boolean {
    const decision = state.decisions.find((d) => d.seq === seq);
    if (!decision) return false;
    const inList = () => this.list.querySelector<HTMLElement>(`li[data-seq="${seq}"]`);
    if (!inList() && this.query) {
      (this.search as HTMLElement & { value: string }).value = '';
      this.query = '';
      this.onQueryChange('');
      this.render(state);
    }
    let li = inList();
    if (!li) {
      li = this.entryFor(decision);
      li.classList.add('pinned');
      this.list.prepend(li);
    }
    this.list.querySelector('li.highlight')?.classList.remove('highlight');
    li.classList.add('highlight');
    li.tabIndex = -1;
    afterLayout(() => {
      centerIn(this.scroller, li);
      li.focus({ preventScroll: true });
    });
    return true;
  }

  /** The first entry in view and its distance from the top, so new entries above do not move it. */
  private visibleAnchor(): { seq: string; offset: number } | undefined {
    const top = this.scroller.getBoundingClientRect().top;
    for (const li of this.list.children) {
      const rect = li.getBoundingClientRect();
      if (rect.bottom > top) {
        const seq = li.getAttribute('data-seq');
        return seq ? { seq, offset: rect.top - top } : undefined;
      }
    }
    return undefined;
  }

  private restoreAnchor(anchor: { seq: string; offset: number }): void {
    const li = this.list.querySelector(`li[data-seq="${CSS.escape(anchor.seq)}"]`);
    if (!li) return;
    const top = this.scroller.getBoundingClientRect().top;
    this.scroller.scrollTop += li.getBoundingClientRect().top - top - anchor.offset;
  }
}

function buildEntry(d: Decision, base: string): HTMLElement {
  const tone = decisionTone(d);
  const task = d.taskId;
  const actions: HTMLElement[] = [];
  if (task !== undefined) {
    // A review's diff is the one that review read, not the task's diff of today.
    const review = d.kind === 'critic';
    const title = review ? `Open the diff this review of ${task} read` : `Open the diff of ${task}`;
    actions.push(h('button', { class: 'link', type: 'button', ...actionAttrs('diff', { taskId: task, ...(review ? { seq: d.seq } : {}) }), title }, icon('diff'), 'diff'));
  }
  if (d.kind === 'gate' || d.kind === 'integration') {
    actions.push(h('button', { class: 'link', type: 'button', ...actionAttrs('gate-output', { seq: d.seq }), title: 'Open the full gate output' }, icon('output'), 'gate output'));
  }
  if (d.kind === 'integration') {
    actions.push(h('button', { class: 'link', type: 'button', ...actionAttrs('integration-diff'), title: 'Open the integration diff' }, icon('git-compare'), 'integration diff'));
  }
  if (d.fact.type === 'actor_snapshot' && task !== undefined) {
    // Shown only while the task waits for you (LedgerView.showApplicable): its worktree is yours then.
    const title = `Put back the worktree of ${task} as it was before attempt ${d.fact.attempt}`;
    actions.push(h('button', { class: 'link restore-snapshot', type: 'button', hidden: true, ...actionAttrs('restore-snapshot', { taskId: task, seq: d.seq }), title }, icon('discard'), 'restore…'));
  }
  const words = wordDecision(d);
  const details = words.details.map(displayText);
  const shownDetails = details.length > DETAIL_LINES ? [...details.slice(0, DETAIL_LINES), `… ${counted(details.length - DETAIL_LINES, 'more line')}`] : details;
  return h(
    'li',
    { class: `entry kind-${d.kind}`, 'data-seq': d.seq },
    h(
      'div',
      { class: 'entry-head' },
      h('span', { class: `entry-kind ${toneClass(tone)}`, title: d.kind }, icon(DECISION_ICON[d.kind])),
      h('time', { class: 'entry-time', datetime: d.at, title: `${d.at} · event ${d.seq}` }, formatClock(d.at)),
      task !== undefined
        ? h('button', { class: 'link task-link', type: 'button', ...actionAttrs('reveal', { taskId: task }), title: `Reveal ${task} in the Runs tree` }, oneLine(task, 60))
        : h('span', { class: 'entry-scope muted' }, d.kind),
      h('span', { class: 'entry-summary' }, displayText(words.summary)),
      gateTags(d, base),
      actions.length ? h('span', { class: 'entry-actions' }, ...actions) : null,
    ),
    shownDetails.length ? h('pre', { class: 'entry-details' }, shownDetails.join('\n')) : null,
  );
}

/** What a gate's result rests on besides exit codes, at a glance: already failing on the base, flaky, advisory, affected only, cached. */
function gateTags(d: Decision, base: string): HTMLElement | null {
  if (d.fact.type !== 'gate_result') return null;
  const tags = judgementTags(d.fact, base, d.fact.integration ? 'integration' : 'task');
  if (tags.length === 0) return null;
  return h('span', { class: 'entry-tags' }, ...tags.map((t) => h('span', { class: 'entry-tag', title: displayText(t.title) }, displayText(t.label))));
}
