import { hash } from 'node:crypto';
import type { CaptureParams } from '../../core/schema/capture-params.js';
import type { ApiKey } from '../../access/keys/api-key.js';

/** Parameters that say how to answer or how to cache, not what to capture. */
const NOT_KEYED = new Set(['response_type', 'async', 'webhook_url', 'cache', 'cache_ttl', 'cache_stale_ttl', 'fresh']);

/**
 * The entry a request reads: SHA-256 of the account and its signing secret, every capture
 * parameter with its defaults filled in (so `format=png` and no format are one entry), and the
 * caller's `cache_key`. A new signing secret is a new set of entries: rotating it leaves every
 * entry made before out of reach at once, on every instance.
 */
export function cacheKeyOf(account: Pick<ApiKey, 'id' | 'signingSecret'>, params: CaptureParams): string {
  const keyed = Object.entries(params)
    .filter(([name]) => !NOT_KEYED.has(name))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return hash('sha256', JSON.stringify([account.id, account.signingSecret ?? '', keyed]), 'hex');
}
