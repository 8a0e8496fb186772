import { hash } from 'node:crypto';
import type { CaptureParams } from '../../core/schema/capture-params.js';

/** Parameters that say how to answer or how to cache, not what to capture. */
const NOT_KEYED = new Set(['response_type', 'async', 'webhook_url', 'cache', 'cache_ttl', 'cache_stale_ttl', 'fresh']);

/**
 * The entry a request reads: SHA-256 of the account, every capture parameter with its defaults
 * filled in (so `format=png` and no format are one entry), and the caller's `cache_key`.
 */
export function cacheKeyOf(accountId: string, params: CaptureParams): string {
  const keyed = Object.entries(params)
    .filter(([name]) => !NOT_KEYED.has(name))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return hash('sha256', JSON.stringify([accountId, keyed]), 'hex');
}
