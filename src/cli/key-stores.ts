import type { Redis } from 'ioredis';
import { createFileKeyStore, createRedisKeyStore, type ApiKey, type KeyStore, type ManagedKeyStore } from '../access/index.js';

/** The managed key store the environment names: `CAPTURE_KEYS_FILE`, else Redis at `CAPTURE_REDIS_URL`. */
export function managedKeyStoreFromEnv(env: NodeJS.ProcessEnv, redis: () => Promise<Redis>): Promise<ManagedKeyStore> | undefined {
  if (env.CAPTURE_KEYS_FILE) return Promise.resolve(createFileKeyStore(env.CAPTURE_KEYS_FILE));
  if (env.CAPTURE_REDIS_URL) return redis().then((client) => createRedisKeyStore(client));
  return undefined;
}

/** Looks a key up in each store in turn (operator keys from the environment first). */
export function firstKnown(stores: readonly KeyStore[]): KeyStore {
  const first = async (find: (store: KeyStore) => Promise<ApiKey | undefined>): Promise<ApiKey | undefined> => {
    for (const store of stores) {
      const record = await find(store);
      if (record) return record;
    }
    return undefined;
  };
  return { lookup: (key) => first((store) => store.lookup(key)), lookupId: (id) => first((store) => store.lookupId(id)) };
}
