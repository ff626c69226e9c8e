/** At most `max` characters: the start and the end, where an output explains itself and where it stopped. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor((max - 30) / 2);
  return `${text.slice(0, half)}\n… (${text.length - 2 * half} characters left out) …\n${text.slice(-half)}`;
}
