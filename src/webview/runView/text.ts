// Agent output (task titles, reasons, findings, gate output) is untrusted: it may carry HTML,
// script or terminal escapes. The view only ever puts it in text nodes (see dom.ts); these make
// it readable there: `displayText` as it should read on screen, `oneLine` for a label or summary.
export { stripTerminalControls as displayText, displayLine as oneLine } from '../../engine/text/terminalText';
export { goalHeadline } from '../../engine/text/clip';
