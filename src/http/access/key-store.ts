import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { TierName } from './tiers.js';

/** What a key stands for. The key itself is never stored, only its SHA-256. */
export interface ApiKeyRecord {
  /** Stable, non-secret id: used for quotas and logs. */
  id: string;
  tier: TierName;
  revoked: boolean;
}

export interface KeyStore {
  /** The record of a presented key, or undefined when unknown. Revoked keys return their record. */
  lookup(key: string): Promise<ApiKeyRecord | undefined>;
}

export interface MemoryKeyStore extends KeyStore {
  /** Adds a key chosen by the operator (e.g. from `CAPTURE_API_KEYS`). */
  add(key: string, tier: TierName): ApiKeyRecord;
  /** Creates a new key: `ce_<id>_<secret>`. The plain key is returned once and kept nowhere. */
  create(tier: TierName): { key: string; record: ApiKeyRecord };
  revoke(id: string): boolean;
}

export function hashKey(key: string): Buffer {
  return hash('sha256', key, 'buffer');
}

/** Key ids derive from the hash, so the same key always maps to the same account. */
function idOf(digest: Buffer): string {
  return `key_${digest.subarray(0, 9).toString('base64url')}`;
}

/** Keys longer than this are refused before hashing, so a huge header costs nothing. */
export const MAX_KEY_LENGTH = 256;

export function createMemoryKeyStore(): MemoryKeyStore {
  const byHash = new Map<string, { digest: Buffer; record: ApiKeyRecord }>();
  const store: MemoryKeyStore = {
    async lookup(key) {
      if (key.length === 0 || key.length > MAX_KEY_LENGTH) return undefined;
      const hex = hash('sha256', key, 'hex');
      const entry = byHash.get(hex);
      // The map finds by hash; the constant-time compare keeps the final decision free of early exits.
      return entry && timingSafeEqual(entry.digest, Buffer.from(hex, 'hex')) ? entry.record : undefined;
    },
    add(key, tier) {
      if (key.length === 0 || key.length > MAX_KEY_LENGTH) throw new Error(`API keys must be 1..${MAX_KEY_LENGTH} characters`);
      const digest = hashKey(key);
      const record: ApiKeyRecord = { id: idOf(digest), tier, revoked: false };
      byHash.set(digest.toString('hex'), { digest, record });
      return record;
    },
    create(tier) {
      const key = `ce_${randomBytes(6).toString('base64url')}_${randomBytes(24).toString('base64url')}`;
      return { key, record: store.add(key, tier) };
    },
    revoke(id) {
      for (const { record } of byHash.values()) {
        if (record.id === id) {
          record.revoked = true;
          return true;
        }
      }
      return false;
    },
  };
  return store;
}
