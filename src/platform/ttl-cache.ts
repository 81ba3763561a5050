import type { Clock } from "./clock.js";

interface Entry<Value> {
  value: Value;
  expiresAt: number;
  bytes: number;
}

/**
 * A bounded in-process cache whose entries expire by the service clock. It holds at most
 * `maxEntries` entries and, when the caller gives each entry's size, at most `maxBytes` of them:
 * when either is full, the oldest entry goes first, and a value larger than `maxBytes` is not kept.
 * Every set first drops the expired entries at the front (the Map keeps insertion order, so with
 * one TTL per cache those are all the expired ones): an answer is not held past its TTL because
 * its key is never read again. A cache with several TTLs (the shop directory's hits and misses)
 * may hold an expired entry behind a live one until the live one expires too. For answers that may be a few seconds old (which company a shop
 * names, published media), never for anything a write must see at once.
 */
export class TtlCache<Value> {
  private readonly entries = new Map<string, Entry<Value>>();
  private bytes = 0;

  constructor(
    private readonly clock: Clock,
    private readonly maxEntries: number,
    private readonly maxBytes = Number.POSITIVE_INFINITY,
  ) {}

  get(key: string): Value | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > this.clock.now().getTime()) return entry.value;
    this.delete(key);
    return undefined;
  }

  /** Keeps `value` for `ttlMs`; `bytes` is its size, counted against the cache's byte budget. */
  set(key: string, value: Value, ttlMs: number, bytes = 0): void {
    this.delete(key);
    if (bytes > this.maxBytes) return;
    const now = this.clock.now().getTime();
    for (const [oldest, entry] of this.entries) {
      const full = this.entries.size >= this.maxEntries || this.bytes + bytes > this.maxBytes;
      if (!full && entry.expiresAt > now) break;
      this.delete(oldest);
    }
    this.entries.set(key, { value, expiresAt: now + ttlMs, bytes });
    this.bytes += bytes;
  }

  /** Drops every entry whose key starts with `prefix`. */
  deleteByPrefix(prefix: string): void {
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}
