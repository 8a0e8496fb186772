// HMAC-SHA256 with the Web Crypto API, which Node 20, browsers and edge runtimes all have.
import { OPERATOR_ID_BYTES, OPERATOR_ID_PREFIX, OPERATOR_SECRET_CONTEXT } from '../access/link-canonical.js';

const encoder = new TextEncoder();

async function hmac(secret: string, text: string | Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, typeof text === 'string' ? encoder.encode(text) : text));
}

/** Lower-case hex HMAC-SHA256 of `text` keyed with `secret`. */
export async function hmacHex(secret: string, text: string | Uint8Array<ArrayBuffer>): Promise<string> {
  return Array.from(await hmac(secret, text), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * The id and signing secret of a key the operator chose (`CAPTURE_API_KEYS`), derived from the key
 * as the service derives them: what `renderLink` needs, from the API key alone.
 */
export async function operatorLinkCredentials(apiKey: string): Promise<{ linkKey: string; signingSecret: string }> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(apiKey)));
  return { linkKey: `${OPERATOR_ID_PREFIX}${base64url(digest.subarray(0, OPERATOR_ID_BYTES))}`, signingSecret: base64url(await hmac(apiKey, OPERATOR_SECRET_CONTEXT)) };
}

/** Equal strings, compared without stopping at the first difference. */
export function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/**
 * Whether a webhook's body is the service's: `signatureHeader` is its `X-Capture-Signature`
 * (`sha256=<hex>`), `body` the exact bytes received (not re-serialised JSON), `secret` the
 * service's webhook secret.
 */
export async function verifyWebhook(body: string | Uint8Array<ArrayBuffer>, signatureHeader: string | null | undefined, secret: string): Promise<boolean> {
  const presented = /^sha256=([0-9a-fA-F]{64})$/.exec(signatureHeader ?? '')?.[1];
  if (presented === undefined) return false;
  return sameText(await hmacHex(secret, body), presented.toLowerCase());
}
