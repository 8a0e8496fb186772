import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/client/index.js';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import type { CaptureJobStatus } from '../../src/http/async-captures-port.js';
import type { WebhookJobData } from '../../src/jobs/job-data.js';
import { resolveJobsOptions } from '../../src/jobs/jobs-options.js';
import { accountWebhookSecret } from '../../src/jobs/webhook-signature.js';
import { startWebhookWorker, WebhookOutbox } from '../../src/jobs/webhooks.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/wait.js';
import { startWebhookReceiver, type WebhookDelivery, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * Webhook deliveries through the outbox and the webhook worker on a real redis-server, to a real
 * receiver; no capture, no browser. The receiver refuses the first try of `RETRIED` once.
 */
const SERVER_SECRET = 'delivery-test-server-secret';
const RETRIED = 'retriedCaptureId000000';
/** Over a second, so a retry falls in another second than its first try. */
const BACKOFF_MS = 1_100;
let redis: TestRedis;
let connection: Redis;
let outbox: WebhookOutbox;
let worker: Worker<WebhookJobData>;
let receiver: WebhookReceiver;

beforeAll(async () => {
  redis = await startRedis();
  receiver = await startWebhookReceiver((delivery) => (delivery.headers['webhook-id'] === RETRIED && receiver.deliveries.filter((d) => d.headers['webhook-id'] === RETRIED).length === 1 ? 500 : 204));
  const options = resolveJobsOptions({ connection: redis.url, queueName: 'webhook-delivery-test', webhookSecret: SERVER_SECRET, webhookBackoffMs: BACKOFF_MS, allowPrivateNetworks: true });
  connection = options.connect();
  outbox = new WebhookOutbox(options, connection);
  worker = startWebhookWorker(options, connection, silentLogger);
});
afterAll(async () => {
  await worker?.close();
  await outbox?.close();
  await connection?.quit();
  await receiver?.close();
  await redis?.stop();
});

const status = (id: string): CaptureJobStatus => ({ id, status: 'completed', created_at: new Date().toISOString() });
const deliveriesOf = (id: string): WebhookDelivery[] => receiver.deliveries.filter((delivery) => delivery.headers['webhook-id'] === id);
/** The delivery judged when it arrived, or `laterSeconds` after. */
const genuine = (delivery: WebhookDelivery, secret: string, laterSeconds = 0): Promise<boolean> =>
  verifyWebhook(delivery.body, delivery.headers, secret, { now: new Date(delivery.receivedAt + laterSeconds * 1000) });

describe('webhook deliveries', () => {
  it("signs each account's deliveries with that account's secret: neither verifies with the other's", async () => {
    const [toA, toB] = ['accountACaptureId00000', 'accountBCaptureId00000'];
    await outbox.send(receiver.url('/a'), 'key_accountA', status(toA));
    await outbox.send(receiver.url('/b'), 'key_accountB', status(toB));
    await until(() => deliveriesOf(toA).length === 1 && deliveriesOf(toB).length === 1, 'both deliveries');
    const [a, b] = [deliveriesOf(toA)[0], deliveriesOf(toB)[0]] as [WebhookDelivery, WebhookDelivery];
    const [secretA, secretB] = [accountWebhookSecret(SERVER_SECRET, 'key_accountA'), accountWebhookSecret(SERVER_SECRET, 'key_accountB')];
    expect(a.headers).toMatchObject({ 'webhook-id': toA, 'x-capture-id': toA, 'content-type': 'application/json' });
    expect(JSON.parse(a.body)).toMatchObject({ id: toA, status: 'completed' });
    expect(Math.abs(Number(a.headers['webhook-timestamp']) * 1000 - a.receivedAt)).toBeLessThan(2_000);
    expect(await genuine(a, secretA)).toBe(true);
    expect(await genuine(b, secretB)).toBe(true);
    expect(await genuine(a, secretB)).toBe(false);
    expect(await genuine(b, secretA)).toBe(false);
  });

  it('retries a refused delivery under the same id, with a fresh timestamp and signature; the first, replayed later, is refused', async () => {
    await outbox.send(receiver.url('/retried'), 'key_accountA', status(RETRIED));
    await until(() => deliveriesOf(RETRIED).length === 2, 'the retry', 15_000);
    const [first, retry] = deliveriesOf(RETRIED) as [WebhookDelivery, WebhookDelivery];
    const secret = accountWebhookSecret(SERVER_SECRET, 'key_accountA');
    expect(retry.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(retry.headers['x-capture-id']).toBe(RETRIED);
    expect(retry.body).toBe(first.body);
    expect(Number(retry.headers['webhook-timestamp'])).toBeGreaterThan(Number(first.headers['webhook-timestamp']));
    expect(retry.headers['webhook-signature']).not.toBe(first.headers['webhook-signature']);
    expect(retry.headers['x-capture-signature']).not.toBe(first.headers['x-capture-signature']);
    expect(await genuine(first, secret)).toBe(true);
    expect(await genuine(retry, secret)).toBe(true);
    expect(await genuine(first, secret, 6 * 60)).toBe(false);
  });
});
