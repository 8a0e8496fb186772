// The canonical form a render link's signature covers: pure code, shared with the browser-safe client.

/**
 * What a key of `CAPTURE_API_KEYS` signs its links with is HMAC-SHA256 of this text keyed with the
 * key. Its public id is `key_` and the base64url of the first `OPERATOR_ID_BYTES` of HMAC-SHA256 of
 * the key keyed with the service's link id secret, or, without one, of the key's SHA-256.
 */
export const OPERATOR_SECRET_CONTEXT = 'capture-engine render links';
export const OPERATOR_ID_PREFIX = 'key_';
export const OPERATOR_ID_BYTES = 9;

/** A managed key is `ce_<8 characters>_<secret>`; its id, the part a link may carry, is the first 11. */
const WHOLE_MANAGED_KEY = /^(ce_[A-Za-z0-9_-]{8})_./;

/** The id of a whole managed API key (secret and all), or undefined for anything else. */
export function managedKeyIdOf(text: string): string | undefined {
  return WHOLE_MANAGED_KEY.exec(text)?.[1];
}

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
