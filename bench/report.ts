/** A section of the results: tables plus notes, rendered both as aligned text and as Markdown. */
export interface Table {
  headers: string[];
  rows: string[][];
  /** Columns to right-align (numbers). */
  numeric?: number[];
}

export interface Section {
  title: string;
  /** What was measured and against which baseline, one paragraph. */
  method: string;
  tables: Table[];
  /** Headline findings: the verdict against the target, anomalies. */
  notes: string[];
}

export function renderText(section: Section): string {
  const out = [`== ${section.title}`];
  for (const table of section.tables) {
    const widths = table.headers.map((h, c) => Math.max(h.length, ...table.rows.map((r) => (r[c] ?? '').length)));
    const line = (cells: string[]): string =>
      cells
        .map((cell, c) => (table.numeric?.includes(c) ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!)))
        .join('  ')
        .trimEnd();
    out.push(line(table.headers), widths.map((w) => '-'.repeat(w)).join('  '));
    for (const row of table.rows) out.push(line(row));
    out.push('');
  }
  for (const note of section.notes) out.push(`* ${note}`);
  return out.join('\n');
}

export function renderMarkdown(section: Section): string {
  const out = [`## ${section.title}`, '', section.method, ''];
  for (const table of section.tables) {
    const cell = (text: string): string => text.replace(/\|/g, '\\|');
    out.push(`| ${table.headers.map(cell).join(' | ')} |`);
    out.push(`| ${table.headers.map((_, c) => (table.numeric?.includes(c) ? '---:' : '---')).join(' | ')} |`);
    for (const row of table.rows) out.push(`| ${row.map(cell).join(' | ')} |`);
    out.push('');
  }
  for (const note of section.notes) out.push(`- ${note}`);
  if (section.notes.length) out.push('');
  return out.join('\n');
}
