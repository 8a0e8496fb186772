import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalQuery } from './link-canonical.js';

export { canonicalQuery, percentEncode, SIGNATURE_PARAM } from './link-canonical.js';

/** HMAC-SHA256 of the canonical form with the key's signing secret, lower-case hex. */
export function signQuery(pairs: Iterable<readonly [string, string]>, signingSecret: string): string {
  return createHmac('sha256', signingSecret).update(canonicalQuery(pairs)).digest('hex');
}

/** Compares in constant time; anything but 64 hex characters is simply wrong. */
export function signatureMatches(pairs: Iterable<readonly [string, string]>, signingSecret: string, presented: string): boolean {
  if (!/^[0-9a-fA-F]{64}$/.test(presented)) return false;
  return timingSafeEqual(Buffer.from(signQuery(pairs, signingSecret), 'hex'), Buffer.from(presented, 'hex'));
}
