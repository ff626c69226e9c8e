/**
 * A map that keeps only its `capacity` most recently set entries: what a long-lived runner
 * remembers per agent session, without growing with every session it ever saw.
 */
export class RecentMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** Sets `key` as the most recent entry; past the capacity, the least recently set one is dropped. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }
}
