import { operatorKey, type ApiKey, type ManagedKeyStore } from './api-key.js';
import { requireStrongSecret } from './key-strength.js';
import { managedKeyStore, type ManagedKeyOptions } from './managed-key-store.js';
import type { TierName } from '../tiers.js';

export interface MemoryKeyStoreOptions extends ManagedKeyOptions {
  /**
   * Keys the render links of operator keys name them by: HMAC-SHA256 of the key with this secret,
   * instead of a plain SHA-256 of the key. Every instance needs the same one; changing it changes
   * the ids, so earlier links of operator keys stop working and their quotas start again.
   */
  linkIdSecret?: string;
  /** For tests only: accept operator keys (and a link id secret) estimated under 128 bits. @default false */
  allowWeakOperatorKeys?: boolean;
  /** What error messages call the list of keys. @default 'apiKeys' */
  source?: string;
}

/**
 * Keys in this process only: the operator's own (`apiKeys`, `CAPTURE_API_KEYS`) and any made at run
 * time. An operator key estimated under 128 bits (`estimatedBits`) is refused: its link id is
 * public, and a short key is found from it by trying guesses.
 */
export function createMemoryKeyStore(
  keys: readonly { key: string; tier: TierName; name?: string; signingSecret?: string }[] = [],
  options: MemoryKeyStoreOptions = {},
): ManagedKeyStore {
  const { linkIdSecret, allowWeakOperatorKeys = false, source = 'apiKeys' } = options;
  if (!allowWeakOperatorKeys) {
    const optOut = 'allowWeakOperatorKeys: true (or CAPTURE_ALLOW_WEAK_KEYS=true)';
    keys.forEach(({ key }, index) => requireStrongSecret(key, `Key ${index + 1} of ${keys.length} in ${source}`, optOut));
    if (linkIdSecret !== undefined) requireStrongSecret(linkIdSecret, 'The link id secret (CAPTURE_LINK_ID_SECRET, option linkIdSecret)', optOut);
  }
  const byDigest = new Map<string, ApiKey>();
  const byId = new Map<string, ApiKey>();
  const put = (key: ApiKey): void => {
    byDigest.set(key.digest, key);
    byId.set(key.id, key);
  };
  for (const { key, tier, name, signingSecret } of keys) put(operatorKey(key, tier, { name, signingSecret, linkIdSecret }));
  return managedKeyStore(
    {
      byDigest: async (digest) => byDigest.get(digest),
      byId: async (id) => byId.get(id),
      lookupId: async (id) => byId.get(id),
      put: async (key) => put(key),
      async add(key) {
        if (byId.has(key.id)) return false;
        put(key);
        return true;
      },
      all: async () => [...byId.values()],
      close: async () => undefined,
    },
    options,
  );
}
