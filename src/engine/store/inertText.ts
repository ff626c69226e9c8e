// Text from agents (plans, findings, summaries, gate output) reaches DECISIONS.md, which
// people open in Markdown previews. It must not be able to inject HTML, links or images,
// reshape the document, or send escape sequences to a terminal that `cat`s the file.

// CSI (colours, cursor moves), OSC (titles, hyperlinks) with either terminator, other ESC pairs.
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-Z\\-_]?|\u009b[0-?]*[ -/]*[@-~]/g;
// C0/C1 controls except tab and newline, DEL, and bidi overrides that can make text read differently from what it is.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

// Every escape sequence starts with a control character, so text without one is left as it is.
const HAS_CONTROL = new RegExp(CONTROL.source);

export function stripTerminalControls(text: string): string {
  if (!HAS_CONTROL.test(text)) return text;
  return text.replace(ANSI, '').replace(CONTROL, '');
}

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
