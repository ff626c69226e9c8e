// Usage: dollars per task and per role as bar charts, and the full numbers (also per agent) as tables.
import type { RunState } from '../../engine/domain/runState';
import { totalTokens, type TokenUsage } from '../../engine/domain/usage';
import { actionAttrs } from './actions';
import { h, s } from './dom';
import { formatTokens, formatUsd } from './format';
import { oneLine } from './text';
import { topBars, usageTables, type ChartBar, type UsageRow } from './usageModel';
import { counted } from '../../engine/text/counted';

const TOP_TASKS = 20;

type SortKey = 'name' | 'input' | 'output' | 'cacheRead' | 'cacheWrite' | 'tokens' | 'cost';

const COLUMNS: ReadonlyArray<{ key: SortKey; label: string; value: (u: TokenUsage) => number; format: (n: number) => string }> = [
  { key: 'input', label: 'input', value: (u) => u.inputTokens, format: plain },
  { key: 'output', label: 'output', value: (u) => u.outputTokens, format: plain },
  { key: 'cacheRead', label: 'cache read', value: (u) => u.cacheReadTokens, format: plain },
  { key: 'cacheWrite', label: 'cache write', value: (u) => u.cacheWriteTokens, format: plain },
  { key: 'tokens', label: 'tokens', value: totalTokens, format: plain },
  { key: 'cost', label: '$', value: (u) => u.costUsd, format: (n) => (n ? `$${n.toFixed(4)}` : '—') },
];

export class UsageView {
  readonly element = h('div', { class: 'panel-body' });
  private readonly scroller = h('div', { class: 'scroll usage-scroll', tabindex: 0 });
  private readonly total = h('p', { class: 'usage-total' });
  private readonly charts = h('div', { class: 'charts' });
  private readonly roleTable = new UsageTable('role', undefined);
  private readonly agentHeading = h('h2', {}, 'Per agent');
  private readonly agentTable = new UsageTable('agent', undefined);
  private readonly taskTable = new UsageTable('task', 'name');
  private drawn = '';

  constructor() {
    this.element.append(this.scroller);
    this.scroller.append(this.total, this.charts, h('h2', {}, 'Per role'), this.roleTable.element, this.agentHeading, this.agentTable.element, h('h2', {}, 'Per task'), this.taskTable.element);
    this.taskTable.element.addEventListener('click', (event) => {
      const header = (event.target as Element).closest('[data-sort]');
      if (!header) return;
      this.taskTable.sortBy(header.getAttribute('data-sort') as SortKey);
    });
  }

  render(state: RunState): void {
    // Only runner_call events change usage: skip the batches that bring none.
    const key = `${state.runId}|${state.usage.calls}|${state.usage.total.costUsd}|${totalTokens(state.usage.total)}|${state.taskOrder.join(',')}`;
    if (key === this.drawn) return;
    this.drawn = key;
    const tables = usageTables(state);
    const roles = topBars(tables.byRole, 3);
    const tasks = topBars(tables.byTask, TOP_TASKS);
    const unit = tasks.unit === 'usd' || roles.unit === 'usd' ? 'usd' : 'tokens';
    const what = unit === 'usd' ? '$' : 'tokens (no prices reported)';
    const t = tables.total;

    this.total.replaceChildren(
      h('strong', {}, formatUsd(t.costUsd)),
      ` · ${formatTokens(totalTokens(t))} tokens (${formatTokens(t.inputTokens)} in, ${formatTokens(t.outputTokens)} out, `,
      `${formatTokens(t.cacheReadTokens + t.cacheWriteTokens)} cache) · ${counted(tables.calls, 'agent call')}`,
    );
    this.charts.replaceChildren(
      h('section', { class: 'chart-card' }, h('h2', {}, `${what} per role`), barChart(roles.bars, unit, 'role')),
      h('section', { class: 'chart-card' }, h('h2', {}, `${what} per task${tables.byTask.length > TOP_TASKS ? ` (top ${TOP_TASKS})` : ''}`), barChart(tasks.bars, unit, 'task')),
    );
    this.roleTable.update(tables.byRole, t);
    // One agent for every role says nothing the role table does not.
    const severalAgents = tables.byAgent.length > 1;
    this.agentHeading.hidden = !severalAgents;
    this.agentTable.element.hidden = !severalAgents;
    if (severalAgents) this.agentTable.update(tables.byAgent, t);
    this.taskTable.update(tables.byTask, t);
  }
}

/** A usage table whose rows are kept by key: an update rewrites only the cells that changed. */
class UsageTable {
  readonly element = h('table', { class: 'usage-table' });
  private readonly head = h('thead');
  private readonly body = h('tbody');
  private readonly foot = h('tfoot');
  private readonly rows = new Map<string, { tr: HTMLTableRowElement; cells: HTMLElement[] }>();
  private last: { rows: UsageRow[]; total: TokenUsage } | undefined;

  constructor(
    private readonly kind: 'role' | 'agent' | 'task',
    private sortedBy: SortKey | undefined,
  ) {
    this.element.append(this.head, this.body, this.foot);
    this.drawHead();
  }

  sortBy(key: SortKey): void {
    this.sortedBy = key;
    this.drawHead();
    if (this.last) this.update(this.last.rows, this.last.total);
  }

  update(rows: UsageRow[], total: TokenUsage): void {
    this.last = { rows, total };
    const sorted = this.sortedBy ? sortRows(rows, this.sortedBy) : rows;
    const order = sorted.map((row) => {
      let entry = this.rows.get(row.key);
      if (!entry) {
        const cells = COLUMNS.map(() => h('td', { class: 'num' }));
        const name = row.taskId !== undefined
          ? h('button', { class: 'link', type: 'button', ...actionAttrs('reveal', { taskId: row.taskId }), title: 'Reveal in the Runs tree' }, oneLine(row.label, 80))
          : row.label;
        entry = { tr: h('tr', {}, h('th', { scope: 'row' }, name), ...cells), cells };
        this.rows.set(row.key, entry);
      }
      setCells(entry.cells, row.usage);
      return entry.tr;
    });
    const current = this.body.children;
    if (current.length !== order.length || order.some((tr, i) => current[i] !== tr)) this.body.replaceChildren(...order);
    const footCells = COLUMNS.map(() => h('td', { class: 'num' }));
    setCells(footCells, total);
    this.foot.replaceChildren(h('tr', {}, h('th', { scope: 'row' }, 'total'), ...footCells));
  }

  private drawHead(): void {
    const header = (key: SortKey, label: string, numeric: boolean) => {
      const content = this.sortedBy
        ? h('button', { class: `sort${this.sortedBy === key ? ' active' : ''}`, type: 'button', 'data-sort': key, title: `Sort by ${label}` }, label)
        : label;
      const sort = this.sortedBy === key ? (key === 'name' ? 'ascending' : 'descending') : undefined;
      return h('th', { class: numeric ? 'num' : '', scope: 'col', 'aria-sort': sort }, content);
    };
    this.head.replaceChildren(h('tr', {}, header('name', this.kind, false), ...COLUMNS.map((c) => header(c.key, c.label, true))));
  }
}

function setCells(cells: HTMLElement[], usage: TokenUsage): void {
  COLUMNS.forEach((c, i) => {
    const text = c.format(c.value(usage));
    if (cells[i]!.textContent !== text) cells[i]!.textContent = text;
  });
}

function barChart(bars: ChartBar[], unit: 'usd' | 'tokens', kind: 'role' | 'task'): Element {
  if (!bars.length) return h('p', { class: 'empty' }, 'Nothing spent yet.');
  const labelWidth = kind === 'role' ? 70 : 160;
  const barArea = 260;
  const valueWidth = 70;
  const rowHeight = 20;
  const width = labelWidth + barArea + valueWidth;
  const height = bars.length * rowHeight + 4;
  // The summed "others" row is printed, not drawn: as a bar it would dwarf the ones it follows.
  const max = Math.max(0, ...bars.filter((b) => b.key !== 'others').map((b) => b.value));
  const svg = s('svg', { class: `bar-chart ${kind}`, width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': `${unit === 'usd' ? 'Dollars' : 'Tokens'} per ${kind}` });
  bars.forEach((bar, i) => {
    const y = i * rowHeight + 2;
    const others = bar.key === 'others';
    const length = others || max <= 0 ? 0 : Math.max(1, (bar.value / max) * barArea);
    const value = unit === 'usd' ? formatUsd(bar.value) : formatTokens(bar.value);
    const link = bar.taskId !== undefined ? { tabindex: 0, role: 'button', ...actionAttrs('reveal', { taskId: bar.taskId }) } : {};
    svg.append(
      s(
        'g',
        { class: `bar-row ${kind === 'role' ? `role-${bar.key}` : bar.key === 'others' ? 'others' : ''}`, ...link },
        s('title', {}, `${oneLine(bar.label, 200)}: ${value}`),
        s('text', { class: 'bar-label', x: labelWidth - 6, y: y + 13, 'text-anchor': 'end' }, oneLine(bar.label, kind === 'role' ? 10 : 22)),
        others ? null : s('rect', { class: 'bar', x: labelWidth, y: y + 2, width: length, height: rowHeight - 6, rx: 2 }),
        s('text', { class: 'bar-value', x: labelWidth + (others ? 0 : length + 6), y: y + 13 }, others ? `${value} together` : value),
      ),
    );
  });
  return svg;
}

function sortRows(rows: UsageRow[], key: SortKey): UsageRow[] {
  if (key === 'name') return rows;
  const column = COLUMNS.find((c) => c.key === key)!;
  return [...rows].sort((a, b) => column.value(b.usage) - column.value(a.usage));
}

function plain(n: number): string {
  return n.toLocaleString('en-US');
}
