import { findNodeAtLocation, parseTree, type Node } from 'jsonc-parser';

import type { TextSpan } from '../domain/textSpan';

export type { TextSpan };

/** A path into the plan object, as the schema reports it: `['tasks', 2, 'title']`. */
export type PlanPath = ReadonlyArray<string | number>;

/** Offsets of a text to lines and columns; the line starts are found once, so many problems stay cheap. */
class LineIndex {
  private readonly starts = [0];

  constructor(readonly text: string) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }

  position(offset: number): { line: number; column: number } {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.starts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: offset - this.starts[low]! + 1 };
  }

  span(start: number, end: number): TextSpan {
    const from = this.position(start);
    const to = this.position(Math.max(end, start + 1));
    return { line: from.line, column: from.column, endLine: to.line, endColumn: to.column };
  }
}

/** The span from one offset of `text` to another (at least one character wide). */
export const spanOfOffsets = (text: string, start: number, end: number): TextSpan => new LineIndex(text).span(start, end);

/** The text of a 1-based line, without its leading and trailing blanks (the whole line when it is blank). */
export function lineSpan(text: string, line: number): TextSpan {
  const lines = text.split('\n');
  const content = (lines[line - 1] ?? '').replace(/\r$/, '');
  const start = content.length - content.trimStart().length;
  const end = content.trimEnd().length;
  return end > start ? { line, column: start + 1, endLine: line, endColumn: end + 1 } : { line, column: 1, endLine: line, endColumn: content.length + 1 };
}

/**
 * Finds paths in JSON `text`, parsed once: the span of the value a path names, or, when it is
 * missing (a required field left out), the first line of the nearest object or list that would
 * hold it. Undefined when the text does not parse to anything.
 */
export function jsonSpans(text: string): (path: PlanPath) => TextSpan | undefined {
  const root = parseTree(text);
  const index = new LineIndex(text);
  return (path) => {
    if (!root) return undefined;
    for (let depth = path.length; depth >= 0; depth--) {
      const node = depth === 0 ? root : findNodeAtLocation(root, [...path.slice(0, depth)]);
      if (!node) continue;
      const whole = depth === path.length && node.type !== 'object' && node.type !== 'array';
      // A whole task object or list spans many lines; its first line is where the eye goes.
      return whole ? index.span(node.offset, node.offset + node.length) : firstLineOf(index, node);
    }
    return undefined;
  };
}

function firstLineOf(index: LineIndex, node: Node): TextSpan {
  // The key names what is wrong better than a lone brace: `"tasks": [` rather than `[`.
  const start = node.parent?.type === 'property' ? node.parent.offset : node.offset;
  const lineEnd = index.text.indexOf('\n', start);
  const end = Math.min(node.offset + node.length, lineEnd < 0 ? index.text.length : lineEnd);
  return index.span(start, start + index.text.slice(start, end).trimEnd().length);
}
