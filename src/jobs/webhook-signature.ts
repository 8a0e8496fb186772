import { createHmac } from 'node:crypto';

/** `X-Capture-Signature`: `sha256=` and the hex HMAC-SHA256 of the exact body bytes. */
export function webhookSignature(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}
