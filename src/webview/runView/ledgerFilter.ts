// Searching the decisions ledger. A run can hold tens of thousands of decisions, so the filter
// walks newest first, keeps at most `limit` matches for display and only counts the rest.
import type { Decision } from '../../engine/domain/runState';
import { wordDecision } from '../../engine/text/decisionWords';
import { FIRST_PAGE_DECISIONS } from '../../protocol/runViewPages';
import { displayText } from './text';

export interface LedgerQuery {
  /** Every word must appear in the entry's kind, task, summary or details. */
  words: string[];
  /** `kind:gate` — the kind starts with one of these. */
  kinds: string[];
  /** `task:parser` — the task id contains one of these. */
  tasks: string[];
}

export interface LedgerPage {
  /** Newest first. */
  shown: Decision[];
  /** How many entries match in all. */
  matching: number;
}

/** As many as a first page of the run carries, so the unfiltered ledger never waits for more. */
export const LEDGER_PAGE_SIZE = FIRST_PAGE_DECISIONS;

export function parseLedgerQuery(text: string): LedgerQuery {
  const query: LedgerQuery = { words: [], kinds: [], tasks: [] };
  for (const raw of text.toLowerCase().split(/\s+/)) {
    if (!raw) continue;
    const [, field, value] = /^(kind|task):(.+)$/.exec(raw) ?? [];
    if (field === 'kind') query.kinds.push(value!);
    else if (field === 'task') query.tasks.push(value!);
    else query.words.push(raw);
  }
  return query;
}

export function filterDecisions(decisions: readonly Decision[], text: string, limit = LEDGER_PAGE_SIZE): LedgerPage {
  const query = parseLedgerQuery(text);
  const shown: Decision[] = [];
  let matching = 0;
  for (let i = decisions.length - 1; i >= 0; i--) {
    const d = decisions[i]!;
    if (!matches(d, query)) continue;
    matching++;
    if (shown.length < limit) shown.push(d);
  }
  return { shown, matching };
}

export function matches(d: Decision, q: LedgerQuery): boolean {
  if (q.kinds.length && !q.kinds.some((k) => d.kind.startsWith(k))) return false;
  if (q.tasks.length && !q.tasks.some((t) => d.taskId?.toLowerCase().includes(t))) return false;
  if (!q.words.length) return true;
  const text = haystack(d);
  return q.words.every((w) => text.includes(w));
}

// Decisions are never changed once made, so each one's search text is built once.
const haystacks = new WeakMap<Decision, string>();

function haystack(d: Decision): string {
  let text = haystacks.get(d);
  if (text === undefined) {
    const { summary, details } = wordDecision(d);
    text = displayText([d.kind, d.taskId ?? '', summary, ...details].join('\n')).toLowerCase();
    haystacks.set(d, text);
  }
  return text;
}
