import { createHmac, hash, randomBytes } from 'node:crypto';
import type { TierName } from '../tiers.js';
import { OPERATOR_ID_BYTES, OPERATOR_ID_PREFIX, OPERATOR_SECRET_CONTEXT } from '../link-canonical.js';

/** One key as every store keeps it: never the key itself, only its SHA-256. */
export interface ApiKey {
  /**
   * Stable, non-secret id, for quotas, logs and the `keys` commands: the public prefix of a key the
   * service made (`ce_<8 characters>`), or `key_` and part of the digest for one the operator chose.
   */
  id: string;
  /** SHA-256 of the whole key, hex. */
  digest: string;
  tier: TierName;
  name?: string;
  /** ISO time. */
  created: string;
  /** ISO time; a revoked key is still found, so its caller hears why it is refused. */
  revoked?: string;
  /**
   * What render links of this key are signed with. Unlike the key it is kept as it is (a signature
   * is checked by computing it again); a key made before render links has none until
   * `keys rotate-signing`.
   */
  signingSecret?: string;
  /** The key works only through signed render links, never in `X-API-Key` or `api_key`. */
  signedOnly?: boolean;
}

/** What the HTTP service needs of a key store. */
export interface KeyStore {
  /** The key presented, or undefined when unknown. Revoked keys are returned too. */
  lookup(key: string): Promise<ApiKey | undefined>;
  /** The key with this public id (a render link names its key so), or undefined. Revoked keys too. */
  lookupId(id: string): Promise<ApiKey | undefined>;
}

/** A key store whose keys are made, listed, revoked and re-tiered while the service runs. */
export interface ManagedKeyStore extends KeyStore {
  /** Makes a key; the plain key is returned once and kept nowhere. */
  create(tier: TierName, options?: { name?: string; signedOnly?: boolean }): Promise<{ key: string; record: ApiKey }>;
  list(): Promise<ApiKey[]>;
  /** False when no key has this id. */
  revoke(id: string): Promise<boolean>;
  setTier(id: string, tier: TierName): Promise<boolean>;
  /** A new signing secret for the key (its earlier render links stop working), or undefined when no key has this id. */
  rotateSigning(id: string): Promise<string | undefined>;
  close(): Promise<void>;
}

/** Keys longer than this are refused before hashing, so a huge header costs nothing. */
export const MAX_KEY_LENGTH = 256;

function digestOf(key: string): string {
  return hash('sha256', key, 'hex');
}

/** The digest to look a presented key up by, or undefined for one no store could hold. */
export function lookupDigest(key: string): string | undefined {
  return key.length === 0 || key.length > MAX_KEY_LENGTH ? undefined : digestOf(key);
}

/** `ce_<id>_<secret>`: 48 random bits of public prefix, 256 of secret. */
export function newKey(): { key: string; id: string; digest: string } {
  const id = `ce_${randomBytes(6).toString('base64url')}`;
  const key = `${id}_${randomBytes(32).toString('base64url')}`;
  return { key, id, digest: digestOf(key) };
}

/** 256 random bits. */
export function newSigningSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The signing secret of a key the operator chose, which has nowhere to keep one: base64url of
 * HMAC-SHA256 keyed with the API key over `capture-engine render links`. Whoever holds the key can
 * compute it; nobody can go back from it to the key.
 */
export function operatorSigningSecret(key: string): string {
  return createHmac('sha256', key).update(OPERATOR_SECRET_CONTEXT).digest('base64url');
}

/**
 * A key the operator chose (`CAPTURE_API_KEYS`, the `apiKeys` option). Its id derives from the key
 * (and the link id secret, when there is one), so it names the same account on every start and
 * every instance that share them.
 */
export function operatorKey(key: string, tier: TierName, options: { name?: string; signingSecret?: string; linkIdSecret?: string } = {}): ApiKey {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) throw new Error(`API keys must be 1..${MAX_KEY_LENGTH} characters`);
  const { name, signingSecret = operatorSigningSecret(key), linkIdSecret } = options;
  return { id: operatorKeyId(key, linkIdSecret), digest: digestOf(key), tier, created: new Date().toISOString(), ...(name ? { name } : {}), signingSecret };
}

/**
 * An id that render links publish. Keyed with a secret the links never carry, nobody can test
 * guesses of the key against it; without one it is a truncated SHA-256, which only a key too
 * random to guess (what the memory store demands) keeps safe.
 */
function operatorKeyId(key: string, linkIdSecret: string | undefined): string {
  const mac = linkIdSecret === undefined ? hash('sha256', key, 'buffer') : createHmac('sha256', linkIdSecret).update(key).digest();
  return `${OPERATOR_ID_PREFIX}${mac.subarray(0, OPERATOR_ID_BYTES).toString('base64url')}`;
}

/**
 * What signs render links of a key the operator chose (`CAPTURE_API_KEYS`): its public id and
 * derived secret. The id needs the service's `linkIdSecret` when it has one, or is taken as given
 * (`linkKey`, as the service printed it at start).
 */
export function operatorLinkCredentials(key: string, options: { linkIdSecret?: string; linkKey?: string } = {}): { key: string; signingSecret: string } {
  return { key: options.linkKey ?? operatorKeyId(key, options.linkIdSecret), signingSecret: operatorSigningSecret(key) };
}
