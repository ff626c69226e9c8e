// Polling for conditions the vscode API reports without an event the test can await
// (the active editor after a palette command, a tree item after a refresh).

/** Resolves with the first truthy value of `probe`, polled every 50 ms; rejects after `timeoutMs` naming `what`. */
export async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
