// HMAC-SHA256 with the Web Crypto API, which Node 20, browsers and edge runtimes all have.
import { OPERATOR_ID_BYTES, OPERATOR_ID_PREFIX, OPERATOR_SECRET_CONTEXT } from '../access/link-canonical.js';

const encoder = new TextEncoder();

async function hmac(secret: string | Uint8Array<ArrayBuffer>, text: string | Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey('raw', typeof secret === 'string' ? encoder.encode(secret) : secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
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
 * The id and signing secret of a key the operator chose (`CAPTURE_API_KEYS`), derived as the service
 * derives them: what `renderLink` needs. The secret comes from the API key alone; the id too when
 * the service has no link id secret. When it has one (`CAPTURE_LINK_ID_SECRET`), give that secret
 * as `linkIdSecret` (code that holds the key may hold it too), or the id as `linkKey` (`serve`
 * prints it at start).
 */
export async function operatorLinkCredentials(apiKey: string, options: { linkIdSecret?: string; linkKey?: string } = {}): Promise<{ key: string; linkKey: string; signingSecret: string }> {
  const signingSecret = base64url(await hmac(apiKey, OPERATOR_SECRET_CONTEXT));
  // `key` as the library's answer and renderLink's option name it; `linkKey` as this client first did.
  const credentials = (linkKey: string) => ({ key: linkKey, linkKey, signingSecret });
  if (options.linkKey !== undefined) return credentials(options.linkKey);
  const mac = options.linkIdSecret === undefined ? new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(apiKey))) : await hmac(options.linkIdSecret, apiKey);
  return credentials(`${OPERATOR_ID_PREFIX}${base64url(mac.subarray(0, OPERATOR_ID_BYTES))}`);
}

/** Equal strings, compared without stopping at the first difference. */
export function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/** How far a webhook's timestamp may be from now, either way, before `verifyWebhook` refuses it (Standard Webhooks' 5 minutes). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/** A request's headers: a `Headers` (fetch, edge runtimes) or a plain object such as Node's `request.headers`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** Seconds the delivery's `webhook-timestamp` may be from `now`, before or after. @default 300 */
  toleranceSeconds?: number;
  /** The time to judge the timestamp by. @default the current time */
  now?: Date;
}

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const found = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(found) ? found.join(' ') : found;
}

function webhookKey(secret: string): Uint8Array<ArrayBuffer> {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  let bytes = '';
  try {
    bytes = atob(encoded);
  } catch {
    // Reported below with the secret's expected form.
  }
  if (bytes.length === 0) throw new TypeError('A webhook secret is whsec_ and base64, as GET /v1/webhook-secret gives it');
  return Uint8Array.from(bytes, (char) => char.charCodeAt(0));
}

function signedContent(id: string, timestamp: string, body: string | Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
  const head = encoder.encode(`${id}.${timestamp}.`);
  const tail = typeof body === 'string' ? encoder.encode(body) : body;
  const content = new Uint8Array(head.length + tail.length);
  content.set(head);
  content.set(tail, head.length);
  return content;
}

/**
 * Whether a webhook is the service's, for this account, and fresh (Standard Webhooks' check):
 * `body` is the exact bytes received (not re-serialised JSON), `headers` the request's, `secret`
 * the account's (`whsec_...`, from `client.webhookSecret()`). Refused: a missing header, a
 * `webhook-timestamp` more than `toleranceSeconds` from now (a replay), a `webhook-signature` with
 * no `v1` HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` under the secret. Within the
 * window, drop a `webhook-id` already handled: retries of one delivery keep it.
 */
export async function verifyWebhook(body: string | Uint8Array<ArrayBuffer>, headers: WebhookHeaders, secret: string, options: VerifyWebhookOptions = {}): Promise<boolean> {
  // The helper once took the lone X-Capture-Signature header, which proves neither freshness nor the id.
  if (typeof headers !== 'object' || headers === null) throw new TypeError('verifyWebhook takes the request\'s headers (webhook-id, webhook-timestamp, webhook-signature), not one header');
  const key = webhookKey(secret);
  const id = headerOf(headers, 'webhook-id');
  const timestamp = headerOf(headers, 'webhook-timestamp');
  const signatures = headerOf(headers, 'webhook-signature');
  if (!id || !signatures || timestamp === undefined || !/^\d{1,12}$/.test(timestamp)) return false;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS)) return false;
  const expected = btoa(String.fromCharCode(...(await hmac(key, signedContent(id, timestamp, body)))));
  // Several signatures, space-separated, let a sender sign with an old and a new secret while it rotates.
  return signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    return version === 'v1' && signature !== undefined && sameText(signature, expected);
  });
}
