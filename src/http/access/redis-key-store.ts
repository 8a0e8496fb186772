import type { ApiKeyRecord } from './key-store.js';
import type { TierName } from './tiers.js';
import { lookupDigest, newKey, toRecord, type ManagedKey, type ManagedKeyStore } from './managed-keys.js';

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
const PREFIXES = 'capture-engine:key-prefixes';

/**
 * Keys in Redis, shared by every instance: a hash from digest to the key's record and one from
 * prefix to digest. Lookups are read through a cache of CACHE_MS.
 */
export function createRedisKeyStore(client: RedisHashClient): ManagedKeyStore {
  const cache = new Map<string, { record: ApiKeyRecord | undefined; until: number }>();
  const read = async (digest: string): Promise<ManagedKey | undefined> => {
    const text = await client.hget(KEYS, digest);
    return text === null ? undefined : (JSON.parse(text) as ManagedKey);
  };
  const write = (key: ManagedKey): Promise<unknown> => Promise.all([client.hset(KEYS, key.digest, JSON.stringify(key)), client.hset(PREFIXES, key.prefix, key.digest)]);
  const change = async (prefix: string, update: (key: ManagedKey) => ManagedKey): Promise<boolean> => {
    const digest = await client.hget(PREFIXES, prefix);
    const key = digest === null ? undefined : await read(digest);
    if (!key) return false;
    await write(update(key));
    return true;
  };
  return {
    async lookup(presented) {
      const digest = lookupDigest(presented);
      if (digest === undefined) return undefined;
      const now = Date.now();
      const cached = cache.get(digest);
      if (cached && cached.until > now) return cached.record;
      const found = await read(digest);
      const record = found && toRecord(found);
      if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
      cache.set(digest, { record, until: now + CACHE_MS });
      return record;
    },
    async create(tier: TierName, name?: string) {
      const { key, prefix, digest } = newKey();
      const record: ManagedKey = { prefix, digest, tier, created: new Date().toISOString(), ...(name ? { name } : {}) };
      await write(record);
      return { key, record };
    },
    list: async () => (await client.hvals(KEYS)).map((text) => JSON.parse(text) as ManagedKey),
    revoke: (prefix) => change(prefix, (key) => ({ ...key, revoked: key.revoked ?? new Date().toISOString() })),
    setTier: (prefix, tier) => change(prefix, (key) => ({ ...key, tier })),
    async close() {
      cache.clear();
    },
  };
}
