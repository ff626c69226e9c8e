/** "1 task", "3 tasks", "0 branches": a count with its noun in the right number, never "task(s)". */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
