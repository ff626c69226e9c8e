import { oneLine } from './clip';

// Text from agents and tools (plans, findings, summaries, gate output) is untrusted: it may carry
// escape sequences that recolour, move the cursor, retitle or hyperlink a terminal, and control
// or bidi characters that make it read differently from what it is. Every view strips them with
// this one function: the CLI, DECISIONS.md, the Runs tree and the run view (browser code too,
// hence no `util.stripVTControlCharacters`, which is Node's only).

// CSI (colours, cursor moves), OSC (titles, hyperlinks) ended by BEL, ST or the end of the text,
// other ESC sequences (charset selection, keypad modes…) and the 8-bit CSI.
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\|$)|\u001b[ -/]*[0-~]?|\u009b[0-?]*[ -/]*[@-~]/g;
// C0/C1 controls except tab and newline, DEL, and bidi overrides.
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// Every escape sequence starts with a control character, so text without one is left as it is.
const HAS_CONTROL = new RegExp(CONTROLS.source);

/** The text without terminal escapes and control characters (tabs and line breaks kept; `\r\n` → `\n`). */
export function stripTerminalControls(text: string): string {
  if (!HAS_CONTROL.test(text)) return text;
  return text.replace(ESCAPES, '').replace(/\r\n?/g, '\n').replace(CONTROLS, '');
}

/** Untrusted text as one line of a label or summary: no escapes or controls, whitespace collapsed, cut at `max`. */
export const displayLine = (text: string, max = Infinity): string => oneLine(stripTerminalControls(text), max);
