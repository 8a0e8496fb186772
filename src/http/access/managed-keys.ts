import { hash, randomBytes } from 'node:crypto';
import type { ApiKeyRecord, KeyStore } from './key-store.js';
import { MAX_KEY_LENGTH } from './key-store.js';
import type { TierName } from './tiers.js';

/** A managed key as stored and listed: never the secret, only its SHA-256. */
export interface ManagedKey {
  /** Public part of the key, shown in lists and logs; the account id for quotas. */
  prefix: string;
  /** SHA-256 of the whole key, hex. */
  digest: string;
  name?: string;
  tier: TierName;
  /** ISO times. */
  created: string;
  revoked?: string;
}

/** A key store whose keys are made, listed, revoked and re-tiered while the service runs. */
export interface ManagedKeyStore extends KeyStore {
  /** Makes a key; the plain key is returned once and kept nowhere. */
  create(tier: TierName, name?: string): Promise<{ key: string; record: ManagedKey }>;
  list(): Promise<ManagedKey[]>;
  /** False when no key has this prefix. */
  revoke(prefix: string): Promise<boolean>;
  setTier(prefix: string, tier: TierName): Promise<boolean>;
  close(): Promise<void>;
}

/** `ce_<prefix>_<secret>`: 48 random bits of public prefix, 256 of secret. */
export function newKey(): { key: string; prefix: string; digest: string } {
  const prefix = `ce_${randomBytes(6).toString('base64url')}`;
  const key = `${prefix}_${randomBytes(32).toString('base64url')}`;
  return { key, prefix, digest: digestOf(key) };
}

export function digestOf(key: string): string {
  return hash('sha256', key, 'hex');
}

/** The digest to look a presented key up by, or undefined for one no store could hold. */
export function lookupDigest(key: string): string | undefined {
  return key.length === 0 || key.length > MAX_KEY_LENGTH ? undefined : digestOf(key);
}

export function toRecord(key: ManagedKey): ApiKeyRecord {
  return { id: key.prefix, tier: key.tier, revoked: key.revoked !== undefined };
}
