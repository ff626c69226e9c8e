// Agent output (task titles, reasons, findings, gate output) is untrusted: it may carry HTML,
// script or terminal escapes. The view only ever puts it in text nodes (see dom.ts); this
// module makes it readable there.

// CSI sequences (colours, cursor moves), OSC sequences (titles, hyperlinks) ended by BEL or ST,
// the other escapes (charset selection, keypad modes…) and the 8-bit CSI.
// eslint-disable-next-line no-control-regex
const ANSI_ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\|$)|\x1b[ -/]*[0-~]|\x9b[0-?]*[ -/]*[@-~]/g;
// C0 controls except tab and newline, DEL and the C1 range.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

export const stripAnsi = (text: string): string => text.replace(ANSI_ESCAPES, '');

/** Text as it should read on screen: no terminal escapes, no control characters, `\r\n` → `\n`. */
export function displayText(text: string): string {
  return stripAnsi(text).replace(/\r\n?/g, '\n').replace(CONTROL_CHARS, '');
}

/** One line for a label or a summary: whitespace runs collapsed, cut at `max` characters with an ellipsis. */
export function oneLine(text: string, max = Infinity): string {
  const line = displayText(text).replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, Math.max(0, max - 1))}…` : line;
}
