import type { Clock } from "./clock.js";

interface Entry<Value> {
  value: Value;
  expiresAt: number;
}

/**
 * A bounded in-process cache whose entries expire by the service clock; when full, the oldest
 * entry goes first. For answers that may be a few seconds old (which company a shop names,
 * published media), never for anything a write must see at once.
 */
export class TtlCache<Value> {
  private readonly entries = new Map<string, Entry<Value>>();

  constructor(
    private readonly clock: Clock,
    private readonly maxEntries: number,
  ) {}

  get(key: string): Value | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > this.clock.now().getTime()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: Value, ttlMs: number): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, expiresAt: this.clock.now().getTime() + ttlMs });
  }

  /** Drops every entry whose key starts with `prefix`. */
  deleteByPrefix(prefix: string): void {
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
