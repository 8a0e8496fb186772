import { operatorKey, type ApiKey, type ManagedKeyStore } from './api-key.js';
import { managedKeyStore } from './managed-key-store.js';
import type { TierName } from '../tiers.js';

/** Keys in this process only: the operator's own (`apiKeys`, `CAPTURE_API_KEYS`) and any made at run time. */
export function createMemoryKeyStore(keys: readonly { key: string; tier: TierName; name?: string; signingSecret?: string }[] = []): ManagedKeyStore {
  const byDigest = new Map<string, ApiKey>();
  const byId = new Map<string, ApiKey>();
  const put = (key: ApiKey): void => {
    byDigest.set(key.digest, key);
    byId.set(key.id, key);
  };
  for (const { key, tier, name, signingSecret } of keys) put(operatorKey(key, tier, name, signingSecret));
  return managedKeyStore({
    byDigest: async (digest) => byDigest.get(digest),
    byId: async (id) => byId.get(id),
    lookupId: async (id) => byId.get(id),
    put: async (key) => put(key),
    all: async () => [...byId.values()],
    close: async () => undefined,
  });
}
