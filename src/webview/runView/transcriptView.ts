// The Transcript tab: what each agent call of a task printed — its messages, tool calls, files
// edited and commands run — attempt by attempt, newest first, the call under way growing as its
// batches arrive. It follows whichever agent printed last until a task is picked. Lines are
// asked for per call when a call is opened (the state holds only where they are in the log).
import type { TranscriptLine, RunEvent } from '../../engine/domain/events';
import type { RunState, TranscriptRecord } from '../../engine/domain/runState';
import { attemptOutcomeWords } from '../../engine/domain/stateWords';
import type { TranscriptCallLines } from '../../protocol/runViewPages';
import { h, icon } from './dom';
import { formatDuration } from './format';
import { formatClock } from '../../engine/text/clock';
import { displayText, oneLine } from './text';
import { callWords } from '../../engine/text/callWords';
import { latestKey, lineClock, recordsOf, RUN_KEY, transcriptGroups, TranscriptLines, type ShownLine } from './transcriptModel';
import { counted } from '../../engine/text/counted';
import { MessageBox } from './messageBox';

const FOLLOW = 'follow';
const KIND_ICON: Record<TranscriptLine['kind'], string> = { text: 'comment', tool: 'tools', status: 'info' };

interface CallView {
  details: HTMLDetailsElement;
  summary: HTMLElement;
  list: HTMLOListElement;
  /** What the list was drawn from: the batches held and whether the call was loaded ('' : not drawn). */
  drawn: string;
}

export class TranscriptView {
  readonly element = h('div', { class: 'panel-body' });
  private readonly picker = h('select', { class: 'transcript-task', 'aria-label': 'Whose agent calls to show' });
  private readonly note = h('span', { class: 'muted transcript-note', 'aria-live': 'polite' });
  private readonly scroller = h('div', { class: 'scroll transcript-scroll', tabindex: 0 });
  private readonly lines = new TranscriptLines();
  /** The picked task (RUN_KEY: the run's own calls); undefined: follow the latest activity. */
  private choice: string | undefined;
  private shownKey: string | undefined;
  private pickerKey = '';
  private structureKey = '';
  private readonly calls = new Map<number, CallView>();
  /** Calls the user opened or closed; the others are open when they are the newest. */
  private readonly toggled = new Map<number, boolean>();
  private readonly messageBox: MessageBox;

  constructor(
    initialChoice: string | undefined,
    private readonly onChoice: (key: string | undefined) => void,
    private readonly load: (calls: number[]) => void,
    private readonly requestRender: () => void,
    onSend: (taskId: string, text: string) => void,
  ) {
    this.messageBox = new MessageBox(onSend);
    this.choice = initialChoice;
    this.picker.addEventListener('change', () => {
      const value = this.picker.value;
      this.choice = value === FOLLOW ? undefined : value.slice(1);
      this.onChoice(this.choice);
      this.requestRender();
    });
    this.element.append(h('div', { class: 'toolbar' }, h('label', { class: 'muted' }, 'Calls of ', this.picker), this.note), this.scroller, this.messageBox.element);
  }

  /** An answer from the log. */
  receive(calls: TranscriptCallLines[]): void {
    this.lines.receive(calls);
  }

  /** Takes the transcript batches of new events; true when the tab has new lines to draw. */
  noteEvents(events: readonly RunEvent[]): boolean {
    return this.lines.noteEvents(events);
  }

  render(state: RunState, live: boolean): void {
    this.renderPicker(state);
    const key = this.choice ?? latestKey(state);
    this.messageBox.render(state, key === RUN_KEY ? undefined : key);
    if (key !== this.shownKey) {
      this.shownKey = key;
      this.calls.clear();
      this.toggled.clear();
      this.structureKey = '';
      this.lines.keepOnly(new Set(key === undefined ? [] : recordsOf(state, key).map((r) => r.seq)));
    }
    if (key === undefined) {
      this.note.textContent = '';
      this.scroller.replaceChildren(h('p', { class: 'empty' }, 'No agent has printed anything yet. What each one does shows here as it works.'));
      this.structureKey = '';
      return;
    }
    const records = recordsOf(state, key);
    const task = key === RUN_KEY ? undefined : state.tasks[key];
    const groups = transcriptGroups(records, task?.attempts ?? []);
    // The newest attempt's calls are open; a call's view keeps the open state it was made with, or the user gave it.
    const newest = new Set(groups[0]?.records.map((r) => r.seq));
    const isOpen = (r: TranscriptRecord) => this.toggled.get(r.seq) ?? newest.has(r.seq);
    const missing = this.lines.ask(records.filter((r) => this.callView(r, isOpen(r)).details.open).map((r) => r.seq));
    if (missing.length) this.load(missing);

    const structure = `${key}|${groups.map((g) => `${g.id}:${g.outcome ? `${g.outcome.state}:${g.outcome.reason}` : ''}:${g.records.map((r) => r.seq).join(',')}`).join('|')}`;
    if (structure !== this.structureKey) {
      this.structureKey = structure;
      this.scroller.replaceChildren(
        ...groups.map((g) =>
          h(
            'section',
            { class: 'transcript-group' },
            h('h3', { class: 'transcript-group-title' }, g.title, g.outcome ? h('span', { class: 'muted' }, ` — ${oneLine(attemptOutcomeWords(g.outcome), 160)}`) : null),
            ...g.records.map((r) => this.callView(r, isOpen(r)).details),
          ),
        ),
      );
    }
    const durations = new Map((task?.calls ?? []).filter((c) => c.transcript !== undefined).map((c) => [c.transcript!, c.durationMs]));
    for (const record of records) {
      const view = this.callView(record, isOpen(record));
      this.drawSummary(view, record, key === RUN_KEY, live, durations.get(record.seq));
      if (view.details.open) this.drawLines(view, record.seq);
    }
    const who = key === RUN_KEY ? 'the run (planning, integration fixes)' : key;
    this.note.textContent = `${counted(records.length, 'call')} of ${who}${this.choice === undefined ? ' — following the latest activity' : ''}`;
  }

  private renderPicker(state: RunState): void {
    const keys = [...(state.transcripts.length ? [RUN_KEY] : []), ...state.taskOrder.filter((id) => state.tasks[id]?.transcripts.length)];
    const pickerKey = `${keys.join('\u0000')}\u0001${this.choice ?? FOLLOW}`;
    if (pickerKey === this.pickerKey) return;
    this.pickerKey = pickerKey;
    // A task picked before its transcripts loaded (a reload) stays listed.
    if (this.choice !== undefined && !keys.includes(this.choice)) keys.push(this.choice);
    // Values are prefixed so a task id can never read as the follow entry.
    const option = (value: string, label: string) => h('option', { value }, label);
    this.picker.replaceChildren(
      option(FOLLOW, 'the latest activity'),
      ...keys.map((k) => option(`:${k}`, k === RUN_KEY ? 'the run: planning, integration fixes' : `${k}: ${oneLine(state.tasks[k]?.title ?? '', 60)}`)),
    );
    this.picker.value = this.choice === undefined ? FOLLOW : `:${this.choice}`;
  }

  private callView(record: TranscriptRecord, open: boolean): CallView {
    let view = this.calls.get(record.seq);
    if (!view) {
      const summary = h('summary', { class: 'transcript-call-head' });
      const list = h('ol', { class: 'transcript-lines', 'aria-label': 'Transcript lines' });
      const details = h('details', { class: 'transcript-call', 'data-seq': record.seq }, summary, list);
      details.open = open;
      const made: CallView = { details, summary, list, drawn: '' };
      details.addEventListener('toggle', () => {
        this.toggled.set(record.seq, details.open);
        if (details.open) {
          const missing = this.lines.ask([record.seq]);
          if (missing.length) this.load(missing);
          made.drawn = '';
          this.requestRender();
        }
      });
      view = made;
      this.calls.set(record.seq, view);
    }
    return view;
  }

  private drawSummary(view: CallView, record: TranscriptRecord, runLevel: boolean, live: boolean, durationMs: number | undefined): void {
    const ended = record.ended;
    const status =
      ended === undefined ? (live ? 'working…' : 'stopped') : ended === 'ok' ? 'done' : ended === 'interrupted' ? 'interrupted' : ended.replace('_', ' ');
    const counts = `${record.lines} line${record.lines === 1 ? '' : 's'}${record.omitted ? `, ${record.omitted} not kept` : ''}`;
    const text = `${callWords(record, runLevel)}|${status}|${durationMs ?? ''}|${counts}|${record.last?.text ?? ''}|${record.last?.n ?? 1}`;
    if (view.summary.getAttribute('data-text') === text) return;
    view.summary.setAttribute('data-text', text);
    const tone = ended === undefined ? 'tone-blue' : ended === 'ok' ? 'tone-green' : 'tone-red';
    view.summary.replaceChildren(
      h('span', { class: `transcript-status ${tone}` }, icon(ended === undefined && live ? 'loading' : ended === undefined || ended === 'ok' ? 'circle-filled' : 'error', ended === undefined && live ? 'codicon-modifier-spin' : '')),
      h('strong', {}, callWords(record, runLevel)),
      h('time', { class: 'muted', datetime: record.at, title: record.at }, formatClock(record.at)),
      h('span', { class: 'muted' }, [status, durationMs !== undefined ? formatDuration(durationMs) : '', counts].filter(Boolean).join(' · ')),
      ...(record.last ? [h('span', { class: 'transcript-last' }, lineText(record.last, 120))] : []),
    );
  }

  private drawLines(view: CallView, seq: number): void {
    const drawn = `${this.lines.batchCount(seq)}|${this.lines.loaded(seq)}`;
    if (drawn === view.drawn) return;
    view.drawn = drawn;
    const list = view.list;
    // A list scrolled to its end stays at its end as lines come in, like a terminal.
    const atEnd = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
    const shown = this.lines.shown(seq);
    if (shown.length === 0) {
      list.replaceChildren(h('li', { class: 'transcript-empty muted' }, this.lines.loaded(seq) ? 'No lines kept.' : 'Loading…'));
      return;
    }
    list.replaceChildren(...shown.map(lineItem));
    if (atEnd) list.scrollTop = list.scrollHeight;
  }
}

function lineItem(item: ShownLine): HTMLElement {
  if (item.kind === 'omitted') {
    return h('li', { class: 'transcript-omitted muted' }, `… ${item.count.toLocaleString('en-US')} line${item.count === 1 ? '' : 's'} not kept …`);
  }
  const { line } = item;
  return h(
    'li',
    { class: `transcript-line kind-${line.kind}` },
    h('time', { class: 'transcript-clock muted', title: `${line.ms} ms into the call` }, lineClock(line.ms)),
    h('span', { class: 'transcript-kind', title: line.kind }, icon(KIND_ICON[line.kind] ?? 'info')),
    h('span', { class: 'transcript-text' }, displayText(line.text)),
    line.n && line.n > 1 ? h('span', { class: 'transcript-repeat muted' }, `×${line.n}`) : null,
  );
}

const lineText = (line: TranscriptLine, max: number): string => `${oneLine(line.text, max)}${line.n && line.n > 1 ? ` ×${line.n}` : ''}`;
