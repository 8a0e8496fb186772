import { randomUUID } from 'node:crypto';
import type { CacheEntry, CacheIndex } from './cache-index.js';

/** The part of an ioredis client the index uses. */
export interface RedisCacheClient {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, expiry: 'PX', ms: number): Promise<unknown>;
  set(key: string, value: string, expiry: 'PX', ms: number, mode: 'NX'): Promise<string | null>;
  eval(script: string, keys: number, ...args: string[]): Promise<unknown>;
}

const ENTRY = 'capture-engine:cache:';
const CLAIM = 'capture-engine:cache-claim:';
/** Deletes a claim only if it is still the caller's: one that expired may be someone else's now. */
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";

/** Entries and claims in Redis, shared by every instance; each expires by itself (`PX`). */
export function redisCacheIndex(client: RedisCacheClient): CacheIndex {
  return {
    async get(key) {
      const text = await client.get(ENTRY + key);
      return text === null ? undefined : (JSON.parse(text) as CacheEntry);
    },
    async set(key, entry) {
      await client.set(ENTRY + key, JSON.stringify(entry), 'PX', Math.max(1, entry.staleUntil - Date.now()));
    },
    async claim(key, ms) {
      const token = randomUUID();
      return (await client.set(CLAIM + key, token, 'PX', ms, 'NX')) === 'OK' ? token : undefined;
    },
    async release(key, token) {
      await client.eval(RELEASE, 1, CLAIM + key, token);
    },
  };
}
