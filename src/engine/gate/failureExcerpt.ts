import { stripTerminalControls } from '../text/terminalText';
import { counted } from '../text/counted';

/**
 * What a failed gate command's output says went wrong, kept for the ledger and for the actor: the
 * failures of the test runners people use, found by their shape, with some context, and the
 * runner's summary line; the head and the tail when no shape is recognised. A failing test's name
 * sits far from the end of its output (TAP prints diagnostics, then the plan and counts), so the
 * tail alone loses it.
 */
export interface FailureExcerpt {
  text: string;
  /** The shape recognised ('tap', 'node:test', 'pytest', …), or null when the excerpt is head and tail. */
  shape: string | null;
}

/** Lines an excerpt keeps at most, and lines per failure block. */
const MAX_LINES = 80;
const BLOCK_LINES = 24;
const HEAD_LINES = 10;
const TAIL_LINES = 30;

interface Shape {
  name: string;
  /** Where a failure block starts. */
  start: RegExp;
  /** Where it ends (exclusive), looking from the line after its start; default: the next start or a blank line. */
  end?: (line: string, startLine: string) => boolean;
  /** Summary lines worth keeping wherever they are (counts, "FAILED x::y"). */
  summary?: RegExp;
}

const indentOf = (line: string) => /^\s*/.exec(line)![0].length;

const SHAPES: Shape[] = [
  {
    // TAP (node --test's default when not on a terminal, tape, node-tap): `not ok N - name`, then its YAML block.
    name: 'tap',
    start: /^\s*not ok \d+/,
    end: (line, start) => line.trim() !== '' && indentOf(line) <= indentOf(start),
    summary: /^# (tests|pass|fail) \d+/,
  },
  {
    // node --test --test-reporter=spec: `✖ name (…ms)` then the indented error.
    name: 'node:test',
    start: /^\s*✖ (?!failing tests:)/,
    end: (line, start) => line.trim() !== '' && indentOf(line) <= indentOf(start),
    summary: /^ℹ (tests|pass|fail) \d+/,
  },
  {
    // pytest: the FAILURES section's `___ test_x ___` blocks (code, `E` lines, location), and the short summary.
    name: 'pytest',
    start: /^_{3,} .+ _{3,}$/,
    end: (line) => /^_{3,} .+ _{3,}$/.test(line) || /^={3,} /.test(line),
    summary: /^(FAILED|ERROR) \S+|^={3,} .*(failed|error)/,
  },
  {
    // jest: `● Suite › test` blocks.
    name: 'jest',
    start: /^\s*● (?!Console)/,
    end: (line) => /^\s*● /.test(line) || /^Test Suites: /.test(line),
    summary: /^(Tests|Test Suites): /,
  },
  {
    // vitest: `FAIL  file > test` headers in its Failed Tests section.
    name: 'vitest',
    start: /^\s*FAIL\s+\S+.* > /,
    end: (line) => /^\s*FAIL\s+/.test(line) || /^\s*⎯{3,}/.test(line),
    summary: /^\s*(Test Files|Tests)\s+\d+ failed/,
  },
  {
    // mocha: the `N failing` section, each failure `  1) title:` then its error.
    name: 'mocha',
    start: /^\s+\d+\) \S/,
    end: (line) => /^\s+\d+\) \S/.test(line),
    summary: /^\s+\d+ (passing|failing|pending)/,
  },
  {
    // cargo test: `---- name stdout ----` blocks, then `failures:` and the result line.
    name: 'cargo test',
    start: /^---- .+ stdout ----$/,
    end: (line) => /^---- .+ stdout ----$/.test(line) || /^failures:$/.test(line),
    summary: /^test result: FAILED|^error: test failed/,
  },
  {
    // go test: `--- FAIL: TestX (0.00s)` and the indented lines under it.
    name: 'go test',
    start: /^\s*--- FAIL: /,
    end: (line, start) => line.trim() !== '' && indentOf(line) <= indentOf(start),
    summary: /^(FAIL|ok)\s+\S+/,
  },
];

export function failureExcerpt(output: string): FailureExcerpt {
  const lines = stripTerminalControls(output).replace(/\r\n?/g, '\n').split('\n');
  while (lines.length && lines.at(-1)!.trim() === '') lines.pop();
  for (const shape of SHAPES) {
    const blocks = failureBlocks(lines, shape);
    if (blocks.length === 0) continue;
    const kept: string[] = [];
    for (const block of blocks) {
      if (kept.length >= MAX_LINES) {
        kept.push(`… and ${counted(blocks.length - blocks.indexOf(block), 'more failure')}`);
        break;
      }
      kept.push(...block.slice(0, BLOCK_LINES), ...(block.length > BLOCK_LINES ? [`  … (${counted(block.length - BLOCK_LINES, 'more line')})`] : []));
    }
    const summary = shape.summary ? lines.filter((l) => shape.summary!.test(l)).slice(-6) : [];
    return { text: [...kept.slice(0, MAX_LINES + 1), ...(summary.length ? ['', ...summary] : [])].join('\n'), shape: shape.name };
  }
  if (lines.length <= HEAD_LINES + TAIL_LINES) return { text: lines.join('\n'), shape: null };
  return {
    text: [...lines.slice(0, HEAD_LINES), `… (${counted(lines.length - HEAD_LINES - TAIL_LINES, 'line')} left out) …`, ...lines.slice(-TAIL_LINES)].join('\n'),
    shape: null,
  };
}

/** Each failure of one shape, in order: its start line and what belongs to it. */
function failureBlocks(lines: string[], shape: Shape): string[][] {
  const blocks: string[][] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!shape.start.test(lines[i]!)) continue;
    const start = lines[i]!;
    const block = [start];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j]!;
      const ends = shape.end ? shape.end(line, start) : line.trim() === '' || shape.start.test(line);
      if (ends) break;
      block.push(line);
    }
    while (block.length > 1 && block.at(-1)!.trim() === '') block.pop();
    // A spec reporter repeats each failure under "failing tests:"; keep each once.
    if (!blocks.some((b) => b[0]!.trim() === start.trim() && b.length >= block.length)) blocks.push(block);
    i = j - 1;
  }
  return blocks;
}
