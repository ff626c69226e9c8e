/** At most `max` characters: the start and the end, where an output explains itself and where it stopped. */
export function clipMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor((max - 30) / 2);
  return `${text.slice(0, half)}\n… (${text.length - 2 * half} characters left out) …\n${text.slice(-half)}`;
}

/** At most `max` characters: the start, with an ellipsis where it was cut. */
export const clipEnd = (text: string, max: number): string => (text.length > max ? `${text.slice(0, Math.max(0, max - 1))}…` : text);

/** One line for a label, a status or a table cell: whitespace runs collapsed, cut at `max` characters. */
export const oneLine = (text: string, max = Infinity): string => clipEnd(text.replace(/\s+/g, ' ').trim(), max);

/**
 * A goal's headline, for a label or a title: its first line. A goal from an issue is its title, then
 * the text quoted; a label of all of it would read as one run-on line.
 */
export const goalHeadline = (goal: string): string => goal.split('\n').find((line) => line.trim() !== '') ?? goal;
