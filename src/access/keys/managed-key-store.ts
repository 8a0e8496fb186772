import { lookupDigest, newKey, newSigningSecret, type ApiKey, type ManagedKeyStore } from './api-key.js';
import type { TierName } from '../tiers.js';

/** Where a store keeps its keys: memory, a file, Redis. The rules of keys live in `managedKeyStore`. */
export interface KeyBackend {
  byDigest(digest: string): Promise<ApiKey | undefined>;
  /** For requests: may answer from a cache as briefly as `byDigest` does. */
  lookupId(id: string): Promise<ApiKey | undefined>;
  /** Read fresh, not from a cache: a change must start from what is stored now. */
  byId(id: string): Promise<ApiKey | undefined>;
  /** Replaces the key with its id (or adds it). */
  put(key: ApiKey): Promise<void>;
  /** Adds a new key unless one has its id already, in one step no other writer can come between; false when one had. */
  add(key: ApiKey): Promise<boolean>;
  all(): Promise<ApiKey[]>;
  close(): Promise<void>;
}

export interface ManagedKeyOptions {
  /** Makes the keys of `create`; for tests that force two keys onto one id. @default newKey */
  generateKey?: () => { key: string; id: string; digest: string };
}

/**
 * Ids are 48 random bits: a new one meets one of n stored with probability n / 2^48, rare but not
 * impossible among millions of keys. Several meetings in a row mean the generator is not random.
 */
const CREATE_TRIES = 5;

/** One behaviour for every store: lookups by digest, keys made once, revocations kept with their time. */
export function managedKeyStore(backend: KeyBackend, { generateKey = newKey }: ManagedKeyOptions = {}): ManagedKeyStore {
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
      for (let tries = 0; tries < CREATE_TRIES; tries++) {
        const { key, id, digest } = generateKey();
        const record: ApiKey = { id, digest, tier, created: new Date().toISOString(), ...(name ? { name } : {}), signingSecret: newSigningSecret(), ...(signedOnly ? { signedOnly } : {}) };
        // Replacing a key that has this id would hand its account (quota, name, links) to the new one.
        if (await backend.add(record)) return { key, record };
      }
      throw new Error(`no free key id after ${CREATE_TRIES} tries: is the key generator random?`);
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
