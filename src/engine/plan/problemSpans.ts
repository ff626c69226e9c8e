import { findNodeAtLocation, parseTree, type Node } from 'jsonc-parser';

/** Where in a plan file a problem is: 1-based lines and columns, the end column exclusive. */
export interface TextSpan {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

/** A path into the plan object, as the schema reports it: `['tasks', 2, 'title']`. */
export type PlanPath = ReadonlyArray<string | number>;

/** The span from one offset of `text` to another. */
export function spanOfOffsets(text: string, start: number, end: number): TextSpan {
  const at = (offset: number) => {
    const before = text.slice(0, offset);
    const lineStart = before.lastIndexOf('\n') + 1;
    return { line: before.split('\n').length, column: offset - lineStart + 1 };
  };
  const from = at(start);
  const to = at(Math.max(end, start + 1));
  return { line: from.line, column: from.column, endLine: to.line, endColumn: to.column };
}

/** The text of a 1-based line, without its leading and trailing blanks (the whole line when it is blank). */
export function lineSpan(text: string, line: number): TextSpan {
  const lines = text.split('\n');
  const content = (lines[line - 1] ?? '').replace(/\r$/, '');
  const start = content.length - content.trimStart().length;
  const end = content.trimEnd().length;
  return end > start ? { line, column: start + 1, endLine: line, endColumn: end + 1 } : { line, column: 1, endLine: line, endColumn: content.length + 1 };
}

/**
 * Where `path` is in JSON `text`: the value it names, or, when it is missing (a required field
 * left out), the first line of the nearest object or list that holds it. Undefined when the
 * text does not parse to anything.
 */
export function jsonSpanOf(text: string, path: PlanPath): TextSpan | undefined {
  const root = parseTree(text);
  if (!root) return undefined;
  for (let depth = path.length; depth >= 0; depth--) {
    const node = depth === 0 ? root : findNodeAtLocation(root, [...path.slice(0, depth)]);
    if (!node) continue;
    return depth === path.length ? spanOfNode(text, node) : firstLineOf(text, node);
  }
  return undefined;
}

function spanOfNode(text: string, node: Node): TextSpan {
  // A whole task object or list spans many lines; its first line is where the eye goes.
  return node.type === 'object' || node.type === 'array' ? firstLineOf(text, node) : spanOfOffsets(text, node.offset, node.offset + node.length);
}

function firstLineOf(text: string, node: Node): TextSpan {
  // The key names what is wrong better than a lone brace: `"tasks": [` rather than `[`.
  const start = node.parent?.type === 'property' ? node.parent.offset : node.offset;
  const lineEnd = text.indexOf('\n', start);
  const end = Math.min(node.offset + node.length, lineEnd < 0 ? text.length : lineEnd);
  return spanOfOffsets(text, start, text.slice(start, end).trimEnd().length + start);
}
