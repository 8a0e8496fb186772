import { createHmac, timingSafeEqual } from 'node:crypto';

/** The parameter that carries a link's signature; every other one is signed. */
export const SIGNATURE_PARAM = 'signature';

/**
 * RFC 3986 percent-encoding: every byte but `A-Z a-z 0-9 - . _ ~` as `%XX` (upper case), UTF-8.
 * `encodeURIComponent` leaves `! ' ( ) *` alone, so they are encoded here too.
 */
export function percentEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * The string a render link's signature covers: every parameter but `signature`, sorted by name
 * (code-unit order; a repeated name keeps its values' order), each `name=value` percent-encoded
 * as RFC 3986 says, joined with `&`. How the link itself encoded them (`+` or `%20`) does not matter.
 */
export function canonicalQuery(pairs: Iterable<readonly [string, string]>): string {
  return [...pairs]
    .filter(([name]) => name !== SIGNATURE_PARAM)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`)
    .join('&');
}

/** HMAC-SHA256 of the canonical form with the key's signing secret, lower-case hex. */
export function signQuery(pairs: Iterable<readonly [string, string]>, signingSecret: string): string {
  return createHmac('sha256', signingSecret).update(canonicalQuery(pairs)).digest('hex');
}

/** Compares in constant time; anything but 64 hex characters is simply wrong. */
export function signatureMatches(pairs: Iterable<readonly [string, string]>, signingSecret: string, presented: string): boolean {
  if (!/^[0-9a-fA-F]{64}$/.test(presented)) return false;
  return timingSafeEqual(Buffer.from(signQuery(pairs, signingSecret), 'hex'), Buffer.from(presented, 'hex'));
}
