// Agent output (task titles, reasons, findings, gate output) is untrusted: it may carry HTML,
// script or terminal escapes. The view only ever puts it in text nodes (see dom.ts); this
// module makes it readable there.
import { stripTerminalControls } from '../../engine/text/terminalText';

/** Text as it should read on screen: no terminal escapes, no control characters, `\r\n` → `\n`. */
export const displayText = stripTerminalControls;

/** One line for a label or a summary: whitespace runs collapsed, cut at `max` characters with an ellipsis. */
export function oneLine(text: string, max = Infinity): string {
  const line = displayText(text).replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, Math.max(0, max - 1))}…` : line;
}
