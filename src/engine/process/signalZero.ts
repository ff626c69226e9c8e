/** `kill(pid, 0)`: the process (or, with a negative pid, the group) exists, perhaps only as a zombie. */
export function signalZero(target: number): boolean {
  try {
    process.kill(target, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
