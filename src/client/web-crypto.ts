// HMAC-SHA256 with the Web Crypto API, which Node 20, browsers and edge runtimes all have.

const encoder = new TextEncoder();

/** Lower-case hex HMAC-SHA256 of `text` keyed with `secret`. */
export async function hmacHex(secret: string, text: string | Uint8Array<ArrayBuffer>): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const data = typeof text === 'string' ? encoder.encode(text) : text;
  const signature = new Uint8Array(await crypto.subtle.sign('HMAC', key, data));
  return Array.from(signature, (byte) => byte.toString(16).padStart(2, '0')).join('');
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
