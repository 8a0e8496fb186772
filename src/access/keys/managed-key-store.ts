import { lookupDigest, newKey, newSigningSecret, type ApiKey, type ManagedKeyStore } from './api-key.js';
import type { TierName } from '../tiers.js';

/** Where a store keeps its keys: memory, a file, Redis. The rules of keys live in `managedKeyStore`. */
export interface KeyBackend {
  byDigest(digest: string): Promise<ApiKey | undefined>;
  /** For requests: may answer from a cache as briefly as `byDigest` does. */
  lookupId(id: string): Promise<ApiKey | undefined>;
  /** Read fresh, not from a cache: a change must start from what is stored now. */
  byId(id: string): Promise<ApiKey | undefined>;
  /** Adds the key, or replaces the one with its id. */
  put(key: ApiKey): Promise<void>;
  all(): Promise<ApiKey[]>;
  close(): Promise<void>;
}

/** One behaviour for every store: lookups by digest, keys made once, revocations kept with their time. */
export function managedKeyStore(backend: KeyBackend): ManagedKeyStore {
  const change = async (id: string, update: (key: ApiKey) => ApiKey): Promise<boolean> => {
    const key = await backend.byId(id);
    if (key) await backend.put(update(key));
    return key !== undefined;
  };
  return {
    async lookup(presented) {
      const digest = lookupDigest(presented);
      return digest === undefined ? undefined : backend.byDigest(digest);
    },
    lookupId: (id) => backend.lookupId(id),
    async create(tier: TierName, { name, signedOnly }: { name?: string; signedOnly?: boolean } = {}) {
      const { key, id, digest } = newKey();
      const record: ApiKey = { id, digest, tier, created: new Date().toISOString(), ...(name ? { name } : {}), signingSecret: newSigningSecret(), ...(signedOnly ? { signedOnly } : {}) };
      await backend.put(record);
      return { key, record };
    },
    list: () => backend.all(),
    revoke: (id) => change(id, (key) => ({ ...key, revoked: key.revoked ?? new Date().toISOString() })),
    setTier: (id, tier) => change(id, (key) => ({ ...key, tier })),
    async rotateSigning(id) {
      const signingSecret = newSigningSecret();
      return (await change(id, (key) => ({ ...key, signingSecret }))) ? signingSecret : undefined;
    },
    close: () => backend.close(),
  };
}

/** A stored key of an earlier version named its id `prefix`. */
export function fromStored(value: unknown): ApiKey | undefined {
  const stored = value as (Partial<ApiKey> & { prefix?: string }) | null;
  const id = stored?.id ?? stored?.prefix;
  if (typeof id !== 'string' || typeof stored?.digest !== 'string' || typeof stored.tier !== 'string') return undefined;
  const { prefix: _prefix, ...rest } = stored;
  return { ...rest, id } as ApiKey;
}
