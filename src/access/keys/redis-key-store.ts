import type { ApiKey, ManagedKeyStore } from './api-key.js';
import { fromStored, managedKeyStore } from './managed-key-store.js';

/** The part of an ioredis client the store uses. */
export interface RedisHashClient {
  hget(key: string, field: string): Promise<string | null>;
  hset(key: string, field: string, value: string): Promise<unknown>;
  hvals(key: string): Promise<string[]>;
}

/** How long a looked-up key is trusted: a revocation reaches every instance within this. */
const CACHE_MS = 500;
/** Remembered lookups at most (unknown keys too, so a flood of them does not reach Redis). */
const CACHE_ENTRIES = 10_000;

const KEYS = 'capture-engine:keys';
/** From id to digest; the name is from when ids were called prefixes. */
const IDS = 'capture-engine:key-prefixes';

/**
 * Keys in Redis, shared by every instance: a hash from digest to the key's record and one from
 * id to digest. Lookups are read through a cache of CACHE_MS.
 */
export function createRedisKeyStore(client: RedisHashClient): ManagedKeyStore {
  const cache = new Map<string, { key: ApiKey | undefined; until: number }>();
  const read = async (digest: string): Promise<ApiKey | undefined> => {
    const text = await client.hget(KEYS, digest);
    return text === null ? undefined : fromStored(JSON.parse(text));
  };
  return managedKeyStore({
    async byDigest(digest) {
      const now = Date.now();
      const cached = cache.get(digest);
      if (cached && cached.until > now) return cached.key;
      const key = await read(digest);
      if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
      cache.set(digest, { key, until: now + CACHE_MS });
      return key;
    },
    async byId(id) {
      const digest = await client.hget(IDS, id);
      return digest === null ? undefined : read(digest);
    },
    async put(key) {
      await Promise.all([client.hset(KEYS, key.digest, JSON.stringify(key)), client.hset(IDS, key.id, key.digest)]);
    },
    all: async () => (await client.hvals(KEYS)).map((text) => fromStored(JSON.parse(text))).filter((key): key is ApiKey => key !== undefined),
    async close() {
      cache.clear();
    },
  });
}
