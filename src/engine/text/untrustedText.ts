import { stripTerminalControls } from './terminalText';

// Text from a forge (a review, a comment, a check's output) is written by people and programs
// Taskloom does not control. What an agent is given of it is what a person reading it on the
// forge would see: visible prose and code. Everything a renderer hides — HTML comments, invisible
// and bidirectional characters, image alt text, link titles and reference definitions, collapsed
// or hidden HTML — is dropped, and so is HTML it does not know to be harmless (default-deny).

// Characters no reader sees: format characters (bidi controls, zero-width joiners, tag
// characters, soft hyphens), the other default-ignorable ones (variation selectors, Hangul
// fillers), controls, private use, unassigned code points and lone surrogates. Tab and newline stay.
const INVISIBLE = /[^\P{Default_Ignorable_Code_Point}]|[^\P{C}\t\n]/gu;
const ODD_SPACES = /[^\P{Zs} ]/gu;
const LINE_SEPARATORS = /[\u2028\u2029]/g;

// Elements whose content a reader does not see, or sees only on demand: dropped with their content.
const HIDING_ELEMENTS = new Set([
  'details', 'script', 'style', 'template', 'noscript', 'textarea', 'iframe', 'object', 'svg', 'math', 'picture', 'video', 'audio',
  'select', 'head', 'title', 'xmp', 'plaintext', 'noembed', 'noframes', 'frameset', 'canvas', 'map', 'datalist', 'dialog', 'form',
]);
// Elements without content: removing the tag removes all of them.
const VOID_ELEMENTS = new Set(['img', 'br', 'hr', 'input', 'source', 'embed', 'meta', 'link', 'area', 'base', 'col', 'wbr', 'track', 'param', 'image']);
// Attributes that can hide an element (or make it tiny) wherever it is rendered.
const HIDING_ATTRIBUTE = /\s(?:hidden|style|width|height|aria-hidden|class|id|align|size)\b/i;
// Attribute-free tags that only format visible text: the tag goes, the text stays.
const FORMATTING = new Set(['b', 'i', 'em', 'strong', 'code', 'pre', 'p', 'br', 'hr', 'ul', 'ol', 'li', 'kbd', 'sub', 'sup', 'blockquote', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'tt', 's', 'del', 'ins', 'strike', 'u', 'q', 'dl', 'dt', 'dd', 'table', 'thead', 'tbody', 'tr', 'td', 'th', 'span', 'div', 'summary', 'a']);

const TAG = /<\/?([A-Za-z][\w:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;
const LINK_REFERENCE = /^ {0,3}\[[^\]\n]+\]:.*$/gm;
const IMAGE = /!\[(?:[^\]\\]|\\.)*\](?:\((?:[^()\\]|\\.|\([^()]*\))*\)|\[[^\]]*\])?/g;
const LINK = /\[((?:[^\]\\]|\\.)*)\]\((?:[^()\\]|\\.|\([^()]*\))*\)/g;
const INLINE_CODE = /(?<!\\)(`+)(?!`)([^\n]*?[^`\n])\1(?!`)/g;

// Numeric character references render as their character: `&#x200B;` is as invisible as U+200B.
const NUMERIC_REFERENCE = /&#(?:[xX]([0-9a-fA-F]{1,6})|([0-9]{1,7}));/g;

function decodeNumericReferences(text: string): string {
  return text.replace(NUMERIC_REFERENCE, (_reference, hex: string | undefined, decimal: string | undefined) => {
    const code = hex ? parseInt(hex, 16) : Number(decimal);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
  });
}

/** The characters of `text` a reader sees: no invisible, bidirectional or control characters, no terminal escapes. */
export function visibleCharacters(text: string): string {
  return stripTerminalControls(decodeNumericReferences(text).replace(/\r\n?/g, '\n'))
    .replace(LINE_SEPARATORS, '\n')
    .replace(INVISIBLE, '')
    .replace(ODD_SPACES, ' ');
}

/**
 * What a person sees of forge text (markdown with HTML), as plain text and code for an agent:
 * invisible characters and HTML comments go everywhere, code blocks and code spans are kept as
 * they are otherwise, and in prose hidden HTML, images (alt text and all), link targets and
 * titles, and link reference definitions go. Pure.
 */
export function sanitizeUntrustedText(text: string): string {
  const visible = visibleCharacters(text).replace(/<!--[\s\S]*?(?:-->|$)/g, '');
  const out: string[] = [];
  let prose: string[] = [];
  let fence: { marker: string; lines: string[] } | undefined;
  const flushProse = () => {
    if (prose.length) out.push(sanitizeProse(prose.join('\n')));
    prose = [];
  };
  for (const line of visible.split('\n')) {
    if (fence) {
      fence.lines.push(line);
      const close = FENCE_OPEN.exec(line);
      if (close && close[1]![0] === fence.marker[0] && close[1]!.length >= fence.marker.length && line.trim() === close[1]) {
        out.push(fence.lines.join('\n'));
        fence = undefined;
      }
      continue;
    }
    const open = FENCE_OPEN.exec(line);
    if (open) {
      flushProse();
      fence = { marker: open[1]!, lines: [line] };
      continue;
    }
    prose.push(line);
  }
  flushProse();
  // An unclosed fence runs to the end, as markdown renders it: still code.
  if (fence) out.push(fence.lines.join('\n'));
  return out
    .join('\n')
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function sanitizeProse(text: string): string {
  // Code spans are shown as typed: kept out of the HTML rules, put back at the end.
  const spans: string[] = [];
  const held = text.replace(INLINE_CODE, (span) => `\u0000${spans.push(span) - 1}\u0000`);
  const cleaned = stripHtml(held.replace(LINK_REFERENCE, '').replace(IMAGE, '[image]').replace(LINK, '$1'));
  return cleaned.replace(/\u0000(\d+)\u0000/g, (_, i: string) => spans[Number(i)]!);
}

/** Hidden elements go with their content (an unclosed one to the end); other tags go; formatting tags leave their text. */
function stripHtml(text: string): string {
  let rest = text;
  for (let hidden = firstHidingTag(rest); hidden; hidden = firstHidingTag(rest)) {
    const end = closingEnd(rest, hidden.name, hidden.end);
    rest = rest.slice(0, hidden.start) + (end === undefined ? '' : rest.slice(end));
  }
  return rest.replace(TAG, (_tag, name: string) => (name.toLowerCase() === 'br' ? '\n' : ''));
}

/** The first tag that opens an element whose content is hidden: a hiding element, or one with attributes that can hide it. */
function firstHidingTag(text: string): { name: string; start: number; end: number } | undefined {
  for (const match of text.matchAll(TAG)) {
    const name = match[1]!.toLowerCase();
    const attributes = match[2] ?? '';
    // A closing tag, or an element without content (its attributes, alt text and all, go with the tag).
    if (match[0].startsWith('</') || VOID_ELEMENTS.has(name) || /\/\s*$/.test(attributes)) continue;
    if (HIDING_ELEMENTS.has(name) || HIDING_ATTRIBUTE.test(attributes) || (!FORMATTING.has(name) && attributes.trim() !== '')) {
      return { name, start: match.index, end: match.index + match[0].length };
    }
  }
  return undefined;
}

/** Where the element `name` opened before `from` ends, counting nested ones of the same name; undefined when it is never closed. */
function closingEnd(text: string, name: string, from: number): number | undefined {
  let depth = 1;
  const tags = new RegExp(`<(/?)${name}(?![\\w:-])(?:[^>"']|"[^"]*"|'[^']*')*>`, 'gi');
  tags.lastIndex = from;
  for (let m = tags.exec(text); m; m = tags.exec(text)) {
    depth += m[1] ? -1 : 1;
    if (depth === 0) return m.index + m[0].length;
  }
  return undefined;
}

/** A fence `text` cannot close: longer than any run of backticks in it. */
export function fenceFor(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

/** Text in a fence its own lines cannot close (a changed file may hold ``` too): an agent's work to judge, not words to the judge. */
export function fenced(lang: string, body: string): string {
  const fence = fenceFor(body);
  return `${fence}${lang}\n${body}\n${fence}`;
}

/** An agent's diff, fenced so that it stays the diff. */
export const fencedDiff = (diff: string): string => fenced('diff', diff || '(no changes)');

/** Sanitised forge text in a fence it cannot close, for a prompt: data to read, not instructions to follow. */
export function quoteAsData(text: string): string {
  const clean = sanitizeUntrustedText(text);
  const fence = fenceFor(clean);
  return `${fence}text\n${clean}\n${fence}`;
}

/** Sanitised forge text as one short line, for the ledger and the views. */
export function untrustedExcerpt(text: string, max: number): string {
  const line = sanitizeUntrustedText(text).replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
