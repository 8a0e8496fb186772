import { LRUCache } from 'lru-cache';
import { randomUUID } from 'node:crypto';
import type { CaptureFormat } from '../../core/schema/formats.js';
import type { PageMetadata } from '../../core/plugin-api.js';

/** One cached capture: where its file is stored and what its answer says. */
export interface CacheEntry {
  /** The capture's id. */
  id: string;
  /** Its file in the storage (`cache/<id>.<ext>`): never rewritten, so its bytes may be kept in memory. */
  storageKey: string;
  format: CaptureFormat;
  contentType: string;
  extension: string;
  size: number;
  /** A strong validator of the bytes, quoted. */
  etag: string;
  /** Times in ms: stored, served fresh until, served stale until. */
  created: number;
  expires: number;
  staleUntil: number;
  clippedFrom?: number;
  page?: PageMetadata;
  /** The files taken beside it (`outputs=`), by name: their keys in the storage, stored as long as the file. */
  sidecars?: Record<string, string>;
}

/**
 * Which captures are cached, and who is capturing one now. In memory for one instance; in Redis
 * for several, so that they share entries and one capture of a missing entry serves all of them.
 */
export interface CacheIndex {
  get(key: string): Promise<CacheEntry | undefined>;
  /** Records the entry until its `staleUntil`. */
  set(key: string, entry: CacheEntry): Promise<void>;
  /**
   * The right to capture `key` for `ms`, as a token to give back; undefined while someone else
   * holds it. A holder that dies loses it when `ms` is over.
   */
  claim(key: string, ms: number): Promise<string | undefined>;
  release(key: string, token: string): Promise<void>;
}

/**
 * Entries in this process: at most `maxEntries`, and `maxBytes` of them as JSON (a `metadata=true`
 * page is up to 256 KiB), the least recently used going first.
 */
export function memoryCacheIndex({ maxEntries = 100_000, maxBytes = 256 * 1024 * 1024 }: { maxEntries?: number; maxBytes?: number } = {}): CacheIndex {
  const entries = new LRUCache<string, CacheEntry>({ max: maxEntries, maxSize: maxBytes, sizeCalculation: (entry) => Math.max(1, JSON.stringify(entry).length) });
  const claims = new Map<string, { token: string; until: number }>();
  return {
    get: async (key) => entries.get(key),
    async set(key, entry) {
      entries.set(key, entry, { ttl: Math.max(1, entry.staleUntil - Date.now()) });
    },
    async claim(key, ms) {
      const held = claims.get(key);
      if (held && held.until > Date.now()) return undefined;
      const token = randomUUID();
      claims.set(key, { token, until: Date.now() + ms });
      return token;
    },
    async release(key, token) {
      if (claims.get(key)?.token === token) claims.delete(key);
    },
  };
}
