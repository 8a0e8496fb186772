import type { ApiKey, ManagedKeyStore } from './api-key.js';
import { fromStored, managedKeyStore, type ManagedKeyOptions } from './managed-key-store.js';

/** The part of an ioredis client the store uses. */
export interface RedisHashClient {
  hget(key: string, field: string): Promise<string | null>;
  hset(key: string, field: string, value: string): Promise<unknown>;
  hsetnx(key: string, field: string, value: string): Promise<number>;
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
 * id to digest. Lookups (by digest and by id) are read through a cache of CACHE_MS.
 */
export function createRedisKeyStore(client: RedisHashClient, options: ManagedKeyOptions = {}): ManagedKeyStore {
  const read = async (digest: string): Promise<ApiKey | undefined> => {
    const text = await client.hget(KEYS, digest);
    return text === null ? undefined : fromStored(JSON.parse(text));
  };
  const byId = async (id: string): Promise<ApiKey | undefined> => {
    const digest = await client.hget(IDS, id);
    return digest === null ? undefined : read(digest);
  };
  const byDigest = briefly(read);
  const lookupId = briefly(byId);
  return managedKeyStore(
    {
      byDigest,
      lookupId,
      byId,
      async put(key) {
        await Promise.all([client.hset(KEYS, key.digest, JSON.stringify(key)), client.hset(IDS, key.id, key.digest)]);
      },
      async add(key) {
        // The id is claimed first: until the record follows, a lookup by id finds nothing, as for an unknown key.
        if ((await client.hsetnx(IDS, key.id, key.digest)) === 0) return false;
        await client.hset(KEYS, key.digest, JSON.stringify(key));
        return true;
      },
      all: async () => (await client.hvals(KEYS)).map((text) => fromStored(JSON.parse(text))).filter((key): key is ApiKey => key !== undefined),
      async close() {
        byDigest.cache.clear();
        lookupId.cache.clear();
      },
    },
    options,
  );
}

/** A lookup remembered for CACHE_MS, unknown answers too, in at most CACHE_ENTRIES entries. */
function briefly(read: (name: string) => Promise<ApiKey | undefined>): ((name: string) => Promise<ApiKey | undefined>) & { cache: Map<string, unknown> } {
  const cache = new Map<string, { key: ApiKey | undefined; until: number }>();
  const lookup = async (name: string): Promise<ApiKey | undefined> => {
    const now = Date.now();
    const cached = cache.get(name);
    if (cached && cached.until > now) return cached.key;
    const key = await read(name);
    if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
    cache.set(name, { key, until: now + CACHE_MS });
    return key;
  };
  return Object.assign(lookup, { cache });
}
