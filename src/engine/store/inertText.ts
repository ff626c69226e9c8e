import { stripTerminalControls } from '../text/terminalText';

// Text from agents (plans, findings, summaries, gate output) reaches DECISIONS.md, which
// people open in Markdown previews. It must not be able to inject HTML, links or images,
// reshape the document, or send escape sequences to a terminal that `cat`s the file.

const HTML: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/**
 * One line of inert Markdown: controls stripped, line breaks folded to spaces (a line break
 * could start a heading, list or table row), HTML escaped, and link, code, strikethrough,
 * `*` and table punctuation backslash-escaped. `_` is left alone: intraword it is literal,
 * and escaping it would clutter every snake_case name for someone reading the raw file.
 */
export function inlineText(text: string): string {
  return stripTerminalControls(text)
    .replace(/\s*[\r\n]+\s*/g, ' ')
    .replace(/[&<>]/g, (c) => HTML[c]!)
    .replace(/[\\`*~[\]|]/g, '\\$&');
}

/**
 * A value shown as code (ids, branches, commits). Anything a code span cannot show safely
 * (a backtick ends it, entities are not decoded in it, `|` splits a table row) falls back
 * to plain inert text.
 */
export function codeText(text: string): string {
  const clean = stripTerminalControls(text).replace(/\s*[\r\n]+\s*/g, ' ');
  return clean === '' || /[`<>&|\\]/.test(clean) ? inlineText(clean) : `\`${clean}\``;
}
