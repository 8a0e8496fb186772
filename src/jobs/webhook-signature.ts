import { createHmac } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/**
 * Keeps an account's secret apart from anything else the server's secret may ever be an HMAC key
 * for; the account id ends the text, so no two accounts share one.
 */
const ACCOUNT_SECRET_CONTEXT = 'capture-engine webhook ';

/** Standard Webhooks asks for keys of 24 to 64 bytes; a shorter one is a mistake, not a choice. */
const MIN_KEY_BYTES = 24;

/**
 * One account's webhook secret, in Standard Webhooks' form (`whsec_` and the base64 of 32 bytes):
 * HMAC-SHA256 keyed with the server's secret (`CAPTURE_WEBHOOK_SECRET`) over
 * `capture-engine webhook <account id>`. An account that learns its own learns nothing of the
 * server's or of another account's, so it can neither sign nor replay a delivery to another tenant.
 */
export function accountWebhookSecret(serverSecret: string, accountId: string): string {
  return SECRET_PREFIX + createHmac('sha256', serverSecret).update(ACCOUNT_SECRET_CONTEXT + accountId).digest('base64');
}

/** The HMAC key a `whsec_<base64>` secret stands for (the prefix may be left out, as Standard Webhooks allows). */
export function webhookKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) ? Buffer.from(encoded, 'base64') : Buffer.alloc(0);
  if (key.length < MIN_KEY_BYTES) throw new Error(`A webhook secret is ${SECRET_PREFIX} and the base64 of at least ${MIN_KEY_BYTES} bytes`);
  return key;
}

/** The secret as accounts are shown it: always with its prefix, whichever way it was written. */
export function normalWebhookSecret(secret: string): string {
  return SECRET_PREFIX + webhookKey(secret).toString('base64');
}

/** One attempt at delivering a webhook: the id stays the same across retries, the timestamp does not. */
export interface WebhookAttempt {
  id: string;
  /** Unix seconds, when the attempt is made. */
  timestamp: number;
  /** The exact bytes POSTed. */
  body: string;
}

/**
 * The headers that sign one attempt. Standard Webhooks': `webhook-id`, `webhook-timestamp` and
 * `webhook-signature` (`v1,` and the base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`). The same HMAC
 * as hex goes in `X-Capture-Signature: sha256=<hex>`, the header the specification's part C names
 * (extensions keep old names): it covers the id and timestamp too, so it can be replayed no more
 * than the other.
 */
export function webhookHeaders(attempt: WebhookAttempt, secret: string): Record<string, string> {
  const mac = createHmac('sha256', webhookKey(secret)).update(`${attempt.id}.${attempt.timestamp}.${attempt.body}`).digest();
  return {
    'webhook-id': attempt.id,
    'webhook-timestamp': String(attempt.timestamp),
    'webhook-signature': `v1,${mac.toString('base64')}`,
    'X-Capture-Signature': `sha256=${mac.toString('hex')}`,
  };
}
