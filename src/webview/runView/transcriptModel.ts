// The Transcript tab's data: each agent call's lines as far as the view holds them (asked for
// from the log, then folded from events), and how calls group into a task's attempts. Pure (no
// DOM), so it is tested in Node.
import type { RunEvent, TranscriptLine } from '../../engine/domain/events';
import type { AttemptRecord, RunState, TranscriptRecord } from '../../engine/domain/runState';
import type { TranscriptBatch, TranscriptCallLines } from '../../protocol/runViewPages';

/** What a call's transcript shows, in order: lines (a run of the same line as one, counted), and where lines were left out. */
export type ShownLine = { kind: 'line'; line: TranscriptLine } | { kind: 'omitted'; count: number };

/** The run's own calls (planning, the integration's fixes) are shown under this key; a task's under its id. */
export const RUN_KEY = '';

/**
 * The lines the view holds, per call, as batches by seq: a batch may arrive twice (in the
 * answer to a request and in an event) or out of order, and is kept once, in place.
 */
export class TranscriptLines {
  private readonly calls = new Map<number, Map<number, TranscriptBatch>>();
  /** Calls asked for and not answered yet. */
  private readonly asked = new Set<number>();

  has(call: number): boolean {
    return this.calls.has(call) || this.asked.has(call);
  }

  /** Marks calls as asked for; returns those not held or asked for already. */
  ask(calls: number[]): number[] {
    const fresh = calls.filter((c) => !this.has(c));
    for (const c of fresh) this.asked.add(c);
    return fresh;
  }

  /** An answer from the log. */
  receive(calls: TranscriptCallLines[]): void {
    for (const call of calls) {
      this.asked.delete(call.seq);
      // Held from now on, even with no batch (the log had none, or could not be read).
      if (!this.calls.has(call.seq)) this.calls.set(call.seq, new Map());
      for (const batch of call.batches) this.add(call.seq, batch);
    }
  }

  /**
   * Takes the batches of `events` that belong to calls it holds or has asked for, and the first
   * batch of every new call (a call that starts while the view is open is shown from its
   * start). Returns whether it took any.
   */
  noteEvents(events: readonly RunEvent[]): boolean {
    let took = false;
    for (const e of events) {
      if (e.type !== 'agent_transcript') continue;
      const call = e.call ?? e.seq;
      if (e.call !== undefined && !this.has(call)) continue;
      this.add(call, { seq: e.seq, lines: e.lines, ...(e.omitted ? { omitted: e.omitted } : {}) });
      took = true;
    }
    return took;
  }

  /** Forgets every call but these (the view moved to another task). */
  keepOnly(calls: ReadonlySet<number>): void {
    for (const call of [...this.calls.keys()]) if (!calls.has(call)) this.calls.delete(call);
    for (const call of [...this.asked]) if (!calls.has(call)) this.asked.delete(call);
  }

  /** How many batches of the call the view holds (a view redraws a call when this changes). */
  batchCount(call: number): number {
    return this.calls.get(call)?.size ?? 0;
  }

  loaded(call: number): boolean {
    return this.calls.has(call) && !this.asked.has(call);
  }

  shown(call: number): ShownLine[] {
    const batches = [...(this.calls.get(call)?.values() ?? [])].sort((a, b) => a.seq - b.seq);
    const out: ShownLine[] = [];
    for (const batch of batches) {
      if (batch.omitted) out.push({ kind: 'omitted', count: batch.omitted });
      for (const line of batch.lines) {
        const last = out.at(-1);
        if (last?.kind === 'line' && last.line.kind === line.kind && last.line.text === line.text) {
          last.line = { ...last.line, n: (last.line.n ?? 1) + (line.n ?? 1) };
        } else out.push({ kind: 'line', line });
      }
    }
    return out;
  }

  private add(call: number, batch: TranscriptBatch): void {
    let batches = this.calls.get(call);
    if (!batches) {
      batches = new Map();
      this.calls.set(call, batches);
    }
    batches.set(batch.seq, batch);
  }
}

/** The records of the task (or of the run, RUN_KEY). */
export function recordsOf(state: RunState, key: string): TranscriptRecord[] {
  return key === RUN_KEY ? state.transcripts : (state.tasks[key]?.transcripts ?? []);
}

/** Whose agent printed last: what the tab shows while it follows the run. */
export function latestKey(state: RunState): string | undefined {
  let best: { key: string; seq: number } | undefined;
  const consider = (key: string, records: TranscriptRecord[]) => {
    const seq = records.at(-1)?.batches.at(-1);
    if (seq !== undefined && (!best || seq > best.seq)) best = { key, seq };
  };
  consider(RUN_KEY, state.transcripts);
  for (const id of state.taskOrder) consider(id, state.tasks[id]?.transcripts ?? []);
  return best?.key;
}

export interface TranscriptGroup {
  /** Stable for the same attempt: the attempt's index; -1 for planning, -2 for pull request fixes outside an attempt. */
  id: number;
  title: string;
  /** How the attempt ended, when it did. */
  outcome?: AttemptRecord['outcome'];
  /** Its calls, oldest first. */
  records: TranscriptRecord[];
}

/** A task's calls by attempt, the newest attempt first: each build or resolution with the reviews of it. */
export function transcriptGroups(records: readonly TranscriptRecord[], attempts: readonly AttemptRecord[]): TranscriptGroup[] {
  const groups = new Map<number, TranscriptGroup>();
  for (const record of records) {
    const id = record.attemptIndex ?? (record.purpose === 'fix' ? -2 : -1);
    let group = groups.get(id);
    if (!group) {
      const attempt = attempts[id];
      group = attempt
        ? { id, title: `Attempt ${attempt.number}${attempt.kind === 'resolve' ? ' · resolving a conflict' : ''}`, ...(attempt.outcome ? { outcome: attempt.outcome } : {}), records: [] }
        : { id, title: id === -2 ? 'Pull request fixes' : 'Planning', records: [] };
      groups.set(id, group);
    }
    group.records.push(record);
  }
  // Newest first: attempts by index, then pull request fixes (they come after the task merged), planning last.
  const order = (g: TranscriptGroup) => (g.id === -2 ? Infinity : g.id);
  return [...groups.values()].sort((a, b) => order(b) - order(a));
}

/** "0:07", "12:40", "1:02:03": when a line came, from its call's start. */
export function lineClock(ms: number): string {
  const s = Math.floor(ms / 1000);
  const mmss = `${Math.floor((s % 3600) / 60)}:${String(s % 60).padStart(2, '0')}`;
  return s >= 3600 ? `${Math.floor(s / 3600)}:${mmss.padStart(5, '0')}` : mmss;
}
