import { describe, expect, it } from 'vitest';
import { verifyWebhook, WEBHOOK_TOLERANCE_SECONDS } from '../../src/client/index.js';
import { accountWebhookSecret, webhookHeaders } from '../../src/jobs/webhook-signature.js';

/**
 * The client's check of a webhook (Web Crypto) against the service's signer (node:crypto) and
 * Standard Webhooks' own example; no service, no browser.
 */
const SPEC = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  attempt: { id: 'msg_p5jXN8AQM9LWM0D4loKWxJek', timestamp: 1614265330, body: '{"test": 2432232314}' },
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const at = (timestamp: number): Date => new Date(timestamp * 1000);

const SERVER_SECRET = 'the-server-webhook-secret';
const secretA = accountWebhookSecret(SERVER_SECRET, 'key_accountA');
const secretB = accountWebhookSecret(SERVER_SECRET, 'key_accountB');
const now = Math.floor(Date.now() / 1000);
const delivery = { id: 'nY4captureIdOf22chars', timestamp: now, body: JSON.stringify({ id: 'nY4captureIdOf22chars', status: 'completed' }) };

describe('verifyWebhook', () => {
  it("accepts Standard Webhooks' example, as a Headers or a plain object in any case, the body as text or bytes", async () => {
    const headers = { 'webhook-id': SPEC.attempt.id, 'webhook-timestamp': String(SPEC.attempt.timestamp), 'webhook-signature': SPEC.signature };
    const options = { now: at(SPEC.attempt.timestamp + 10) };
    expect(await verifyWebhook(SPEC.attempt.body, headers, SPEC.secret, options)).toBe(true);
    expect(await verifyWebhook(SPEC.attempt.body, new Headers(headers), SPEC.secret, options)).toBe(true);
    expect(await verifyWebhook(SPEC.attempt.body, { 'Webhook-Id': headers['webhook-id'], 'WEBHOOK-TIMESTAMP': headers['webhook-timestamp'], 'Webhook-Signature': [SPEC.signature] }, SPEC.secret, options)).toBe(true);
    expect(await verifyWebhook(new TextEncoder().encode(SPEC.attempt.body), headers, SPEC.secret, options)).toBe(true);
    expect(await verifyWebhook(SPEC.attempt.body, headers, SPEC.secret.slice('whsec_'.length), options)).toBe(true);
  });

  it("verifies the service's signature with the account's secret only: A's secret refuses B's delivery", async () => {
    const toA = webhookHeaders(delivery, secretA);
    const toB = webhookHeaders(delivery, secretB);
    expect(secretA).not.toBe(secretB);
    expect(await verifyWebhook(delivery.body, toA, secretA)).toBe(true);
    expect(await verifyWebhook(delivery.body, toB, secretB)).toBe(true);
    expect(await verifyWebhook(delivery.body, toB, secretA)).toBe(false);
    expect(await verifyWebhook(delivery.body, toA, secretB)).toBe(false);
    // The old single secret for everyone, used as a key, verifies nothing.
    expect(await verifyWebhook(delivery.body, toA, `whsec_${Buffer.from(SERVER_SECRET).toString('base64')}`)).toBe(false);
  });

  it(`refuses a delivery replayed after the ${WEBHOOK_TOLERANCE_SECONDS} s window, or dated too far ahead; toleranceSeconds widens it`, async () => {
    const headers = webhookHeaders(delivery, secretA);
    expect(await verifyWebhook(delivery.body, headers, secretA, { now: at(now + WEBHOOK_TOLERANCE_SECONDS) })).toBe(true);
    expect(await verifyWebhook(delivery.body, headers, secretA, { now: at(now + WEBHOOK_TOLERANCE_SECONDS + 1) })).toBe(false);
    expect(await verifyWebhook(delivery.body, headers, secretA, { now: at(now - WEBHOOK_TOLERANCE_SECONDS - 1) })).toBe(false);
    expect(await verifyWebhook(delivery.body, headers, secretA, { now: at(now + 3600), toleranceSeconds: 7200 })).toBe(true);
    // A replay cannot be freshened: a new timestamp needs a new signature.
    const restamped = { ...headers, 'webhook-timestamp': String(now + 3600) };
    expect(await verifyWebhook(delivery.body, restamped, secretA, { now: at(now + 3600) })).toBe(false);
  });

  it('refuses a changed id, timestamp or body, a missing header, and a signature of another version', async () => {
    const headers = webhookHeaders(delivery, secretA);
    expect(await verifyWebhook(delivery.body, { ...headers, 'webhook-id': 'anotherCaptureId000000' }, secretA)).toBe(false);
    expect(await verifyWebhook(delivery.body, { ...headers, 'webhook-timestamp': String(now - 1) }, secretA)).toBe(false);
    expect(await verifyWebhook(delivery.body, { ...headers, 'webhook-timestamp': `${now}.0` }, secretA)).toBe(false);
    expect(await verifyWebhook(`${delivery.body} `, headers, secretA)).toBe(false);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const { [name]: _dropped, ...rest } = headers;
      expect(await verifyWebhook(delivery.body, rest, secretA)).toBe(false);
    }
    const [, mac] = (headers['webhook-signature'] as string).split(',');
    expect(await verifyWebhook(delivery.body, { ...headers, 'webhook-signature': `v2,${mac}` }, secretA)).toBe(false);
    expect(await verifyWebhook(delivery.body, { ...headers, 'webhook-signature': `v1,${(mac as string).slice(0, 20)}` }, secretA)).toBe(false);
    // Several signatures (a secret being rotated): one good v1 is enough.
    expect(await verifyWebhook(delivery.body, { ...headers, 'webhook-signature': `v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= v1,${mac}` }, secretA)).toBe(true);
  });

  it('takes no X-Capture-Signature alone (it proves no freshness), and says so when given one header for the headers', async () => {
    const { 'X-Capture-Signature': hex } = webhookHeaders(delivery, secretA);
    expect(await verifyWebhook(delivery.body, { 'x-capture-signature': hex }, secretA)).toBe(false);
    await expect(verifyWebhook(delivery.body, hex as never, secretA)).rejects.toThrow(/headers/);
    await expect(verifyWebhook(delivery.body, webhookHeaders(delivery, secretA), 'not base64!')).rejects.toThrow(/whsec_/);
  });
});
