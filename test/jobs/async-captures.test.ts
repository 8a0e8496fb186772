import { createHmac } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookDelivery, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { isBuilt, sharedStorageDir, startBuiltService, startBuiltWorker, type BuiltProcess, type BuiltService, killLeftoverBuiltProcesses } from '../helpers/built-service.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { decode, near } from '../helpers/pixels.js';
import { until } from '../helpers/wait.js';
import { isAlive, processTree } from '../helpers/processes.js';
import { probe, VIDEO_ROUTES } from '../plugins/video-fixtures.js';
import type { CaptureJobStatus } from '../../src/index.js';
import { verifyWebhook } from '../../src/client/index.js';

// A test that fails before stopping its service leaves it running: kill what is left.
afterAll(killLeftoverBuiltProcesses);

/**
 * Asynchronous captures end to end: two service instances and worker processes of the built CLI
 * on one real redis-server, sharing a storage directory, as a deployment on one machine would.
 */

const KEYS = { a: 'ce_async_a_0123456789abcdefghijk', b: 'ce_async_b_0123456789abcdefghijk' };
const SECRET = 'webhook-test-secret';
let fixtures: FixtureServer;
let redis: TestRedis;
let storageDir: string;
let instanceA: BuiltService;
let instanceB: BuiltService;
let worker: BuiltProcess;
let receiver: WebhookReceiver;
const flakyHits = new Map<string, number>();
let env: Record<string, string>;

beforeAll(async () => {
  fixtures = await startFixtureServer({
    ...VIDEO_ROUTES,
    // 503 for the first `fail` requests of each `id`, then a green page.
    '/flaky': (req, res) => {
      const query = new URL(req.url ?? '/', 'http://x').searchParams;
      const id = query.get('id') ?? '';
      const hits = (flakyHits.get(id) ?? 0) + 1;
      flakyHits.set(id, hits);
      const failing = hits <= Number(query.get('fail') ?? 0);
      res.writeHead(failing ? 503 : 200, { 'Content-Type': 'text/html' }).end(`<body style="margin:0;height:100vh;background:${failing ? '#ff0000' : '#00ff00'}"></body>`);
    },
  });
  receiver = await startWebhookReceiver();
  redis = await startRedis();
  let tempDir: string;
  ({ storageDir, tempDir } = await sharedStorageDir('capture-async-'));
  env = {
    TMPDIR: tempDir,
    CAPTURE_REDIS_URL: redis.url,
    CAPTURE_API_KEYS: `${KEYS.a}:PRO,${KEYS.b}:PRO`,
    CAPTURE_ALLOW_PRIVATE_NETWORKS: 'true',
    CAPTURE_STORAGE_DIR: storageDir,
    CAPTURE_WEBHOOK_SECRET: SECRET,
    CAPTURE_JOB_ATTEMPTS: '3',
    CAPTURE_JOB_BACKOFF_MS: '200',
    CAPTURE_JOB_LOCK_MS: '5000',
    CAPTURE_TIMEOUT_MS: '8000',
    CAPTURE_CONCURRENCY: '1',
    CAPTURE_LOG_LEVEL: 'warn',
  };
  if (!isBuilt()) return;
  [instanceA, instanceB, worker] = await Promise.all([startBuiltService('node', env), startBuiltService('express', env), startBuiltWorker(env)]);
}, 60_000);
afterAll(async () => {
  await Promise.all([instanceA?.stop(), instanceB?.stop(), worker?.stop()]);
  await receiver?.close();
  await redis?.stop();
  await fixtures?.close();
  await rm(storageDir, { recursive: true, force: true });
});

type Status = CaptureJobStatus;

const small = { viewport_width: '300', viewport_height: '200' };
async function enqueue(on: BuiltService, query: Record<string, string>, key = KEYS.a, idempotencyKey?: string): Promise<{ response: Response; body: { id: string; status: string; status_url: string } }> {
  const response = await fetch(`${on.origin}/api/v1/capture`, {
    method: 'POST',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json', ...(idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey }) },
    body: JSON.stringify({ ...small, ...query, async: true }),
  });
  return { response, body: (await response.json()) as { id: string; status: string; status_url: string } };
}
async function statusOf(on: BuiltService, id: string, key = KEYS.a): Promise<Status> {
  return (await (await fetch(`${on.origin}/api/v1/captures/${id}`, { headers: { 'X-API-Key': key } })).json()) as Status;
}
async function finished(on: BuiltService, id: string, timeoutMs = 30_000): Promise<Status> {
  let last: Status | undefined;
  await until(async () => ['completed', 'failed'].includes((last = await statusOf(on, id)).status), `capture ${id} to finish`, timeoutMs);
  return last as Status;
}
/** The account's quota left, read without spending any. */
async function quotaLeft(key = KEYS.a): Promise<number> {
  return Number((await fetch(`${instanceB.origin}/api/v1/openapi.json`, { headers: { 'X-API-Key': key } })).headers.get('x-quota-remaining'));
}

describe.skipIf(!isBuilt())('asynchronous captures', () => {
  it('is queued on instance A (202), run by a worker process, and read on instance B', async () => {
    const before = await quotaLeft();
    const { response, body } = await enqueue(instanceA, { url: fixtures.url('/solid?color=%2300ff00') });
    expect(response.status).toBe(202);
    expect(body).toEqual({ id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/), status: 'queued', status_url: `/api/v1/captures/${body.id}`, request_id: response.headers.get('x-request-id') });
    expect(response.headers.get('location')).toBe(body.status_url);
    expect(response.headers.get('x-quota-remaining')).toBe(String(before - 1));
    const status = await finished(instanceB, body.id);
    expect(status).toMatchObject({ id: body.id, status: 'completed', format: 'PNG', url: expect.stringMatching(/^\/api\/files\//) });
    expect(Date.parse(status.created_at)).toBeLessThanOrEqual(Date.parse(status.started_at as string));
    expect(Date.parse(status.started_at as string)).toBeLessThanOrEqual(Date.parse(status.finished_at as string));
    const file = await fetch(`${instanceB.origin}${status.url}`);
    expect(file.headers.get('content-type')).toBe('image/png');
    const image = await decode(Buffer.from(await file.arrayBuffer()));
    expect([image.width, image.height]).toEqual([300, 200]);
    expect(near(image.at(150, 100), '#00ff00')).toBe(true);
    expect(status.size).toBe(Number(file.headers.get('content-length')));
    expect(await quotaLeft()).toBe(before - 1);
  });

  it('replays an async answer under its Idempotency-Key on another instance: the same capture, no new quota', async () => {
    const before = await quotaLeft();
    const query = { url: fixtures.url('/solid?idempotent=async') };
    const first = await enqueue(instanceA, query, KEYS.a, 'retry-after-timeout');
    expect(first.response.status).toBe(202);
    const again = await enqueue(instanceB, query, KEYS.a, 'retry-after-timeout');
    expect(again.response.status).toBe(202);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await quotaLeft()).toBe(before - 1);
    expect(await finished(instanceB, first.body.id)).toMatchObject({ status: 'completed' });
  });

  it('says in the status which waits a best_effort capture went on without, with diagnostics and the HAR\'s URL', async () => {
    const url = fixtures.url('/solid?color=%2300ff00');
    const { body } = await enqueue(instanceA, { url, wait_for_hidden: 'body', best_effort: 'true', timeout: '4000', diagnostics: 'true', har: 'true' });
    const status = await finished(instanceB, body.id);
    expect(status).toMatchObject({ status: 'completed', incomplete: ['wait_for_hidden'], diagnostics: { document: { url, status: 200 } } });
    expect(status.diagnostics?.waits.find((wait) => wait.name === 'wait_for_hidden')?.outcome).toBe('ran_out');
    const har = await fetch(`${instanceB.origin}${status.har_url}`, { headers: { 'X-API-Key': KEYS.a } });
    expect(har.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await har.json()).log.entries.map((entry: { request: { url: string } }) => entry.request.url)).toContain(url);
  });

  it('carries outputs= in the status and the webhook: each sidecar at its <name>_url, from a worker, read on instance B (issue 52)', async () => {
    const { body } = await enqueue(instanceA, { html: '<h1>Queued</h1><p>See <a href="https://example.com/q">q</a>.</p>', outputs: 'markdown,links', webhook_url: receiver.url('/outputs') });
    const status = (await finished(instanceB, body.id)) as Status & Record<'markdown_url' | 'links_url', string>;
    await until(() => receiver.deliveries.some((d) => d.headers['x-capture-id'] === body.id), 'the webhook', 15_000);
    const sent = JSON.parse((receiver.deliveries.find((d) => d.headers['x-capture-id'] === body.id) as WebhookDelivery).body) as Record<string, unknown>;
    expect([sent.markdown_url, sent.links_url]).toEqual([status.markdown_url, status.links_url]);
    expect(status).toMatchObject({ status: 'completed', format: 'PNG', markdown_url: expect.stringMatching(/^\/api\/files\/.*\.md$/), links_url: expect.stringMatching(/^\/api\/files\/.*\.json$/) });
    const markdown = await fetch(`${instanceB.origin}${status.markdown_url}`, { headers: { 'X-API-Key': KEYS.a } });
    expect(markdown.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(await markdown.text()).toBe('# Queued\n\nSee [q](https://example.com/q).\n');
    const links = await fetch(`${instanceB.origin}${status.links_url}`, { headers: { 'X-API-Key': KEYS.a } });
    expect(await links.json()).toEqual({ links: [{ url: 'https://example.com/q', text: 'q', rel: null, same_origin: false }] });
  });

  it('shows a status to the account that asked only: 404 for another key, 401 without one', async () => {
    const { body } = await enqueue(instanceA, { url: fixtures.url('/solid') });
    const other = await fetch(`${instanceB.origin}/api/v1/captures/${body.id}`, { headers: { 'X-API-Key': KEYS.b } });
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ code: 'NOT_FOUND' });
    expect((await fetch(`${instanceB.origin}/api/v1/captures/${body.id}`)).status).toBe(401);
    expect((await fetch(`${instanceB.origin}/api/v1/captures/nope`, { headers: { 'X-API-Key': KEYS.a } })).status).toBe(404);
    await finished(instanceB, body.id);
  });

  // Issue 47: a job lives in Redis, so a document uploaded whole into one would fill it for every tenant.
  it('refuses an asynchronous upload over 1 MiB of parameters with 413 naming async, and queues nothing', async () => {
    const jobIds = async (): Promise<number> => (await redis.client().keys('bull:capture-engine:*')).length;
    const jobsBefore = await jobIds();
    const quota = await quotaLeft();
    const form = new FormData();
    form.set('async', 'true');
    form.set('files', new Blob([`<body>${'x'.repeat(1_200_000)}</body>`], { type: 'text/html' }), 'index.html');
    const refused = await fetch(`${instanceA.origin}/api/v1/capture`, { method: 'POST', headers: { 'X-API-Key': KEYS.a }, body: form });
    expect(refused.status).toBe(413);
    expect(await refused.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', param: 'async', limit: 1_048_576 });
    expect(await jobIds()).toBe(jobsBefore);
    expect(await quotaLeft()).toBe(quota);
  });

  it("POSTs the final status to webhook_url once, signed with the account's own secret, which the account reads from the service", async () => {
    const secretOf = async (key: string | undefined): Promise<Response> => fetch(`${instanceB.origin}/api/v1/webhook-secret`, { headers: key === undefined ? {} : { 'X-API-Key': key } });
    const answer = await secretOf(KEYS.a);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const { secret } = (await answer.json()) as { secret: string };
    const { secret: secretB } = (await (await secretOf(KEYS.b)).json()) as { secret: string };
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secretB).not.toBe(secret);
    expect(((await (await fetch(`${instanceA.origin}/api/v1/webhook-secret`, { headers: { 'X-API-Key': KEYS.a } })).json()) as { secret: string }).secret).toBe(secret);
    expect((await secretOf(undefined)).status).toBe(401);

    const hook = receiver.url('/hook');
    const { body } = await enqueue(instanceA, { url: fixtures.url('/solid?color=%2300ff00'), webhook_url: hook });
    const status = await finished(instanceB, body.id);
    await until(() => receiver.deliveries.some((d) => d.headers['x-capture-id'] === body.id), 'the webhook', 15_000);
    // A second delivery would come within the backoff; give it the time to.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const mine = receiver.deliveries.filter((d) => d.headers['x-capture-id'] === body.id);
    expect(mine).toHaveLength(1);
    const [delivery] = mine as [WebhookDelivery];
    expect(delivery.headers['content-type']).toBe('application/json');
    expect(delivery.headers['webhook-id']).toBe(body.id);
    const timestamp = delivery.headers['webhook-timestamp'] as string;
    expect(Math.abs(Number(timestamp) * 1000 - delivery.receivedAt)).toBeLessThan(2_000);
    expect(await verifyWebhook(delivery.body, delivery.headers, secret)).toBe(true);
    expect(await verifyWebhook(delivery.body, delivery.headers, secretB)).toBe(false);
    // SPEC part C's header: the same HMAC in hex, over the id and timestamp too, with the account's key.
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    expect(delivery.headers['x-capture-signature']).toBe(`sha256=${createHmac('sha256', key).update(`${body.id}.${timestamp}.${delivery.body}`).digest('hex')}`);
    expect(delivery.headers['x-capture-signature']).not.toBe(`sha256=${createHmac('sha256', SECRET).update(delivery.body).digest('hex')}`);
    expect(JSON.parse(delivery.body)).toMatchObject({ id: body.id, status: 'completed', url: status.url, size: status.size, format: 'PNG' });
  });

  it('refuses a webhook the egress guard refuses, and async without a webhook secret names it', async () => {
    const refused = await enqueue(instanceA, { url: fixtures.url('/solid'), webhook_url: 'file:///etc/passwd' });
    expect(refused.response.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'URL_NOT_ALLOWED' });
  });

  it('counts the quota exactly once across retries: refunded once when every try fails, taken once when a retry succeeds', async () => {
    const before = await quotaLeft();
    const failing = await enqueue(instanceA, { url: fixtures.url('/flaky?id=always&fail=99'), fail_on_http_error: 'true' });
    const recovering = await enqueue(instanceA, { url: fixtures.url('/flaky?id=twice&fail=2'), fail_on_http_error: 'true' });
    const notFound = await enqueue(instanceA, { url: fixtures.url('/solid'), selector: '#missing' });
    const failed = await finished(instanceB, failing.body.id);
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'CAPTURE_FAILED', error: expect.stringMatching(/503/) } });
    expect(flakyHits.get('always')).toBe(3);
    const recovered = await finished(instanceB, recovering.body.id);
    expect(recovered.status).toBe('completed');
    expect(flakyHits.get('twice')).toBe(3);
    expect(await finished(instanceB, notFound.body.id)).toMatchObject({ status: 'failed', error: { code: 'ELEMENT_NOT_FOUND' } });
    expect(await quotaLeft()).toBe(before - 1);
  });

  it('loses nothing when a worker is killed mid-recording: another worker takes the job over and completes it', async () => {
    const before = await quotaLeft();
    // Live, so that the recording lasts its 5 s: one drawn frame by frame would be over before the kill.
    const { body } = await enqueue(instanceA, { url: fixtures.url('/fade'), scenario: 'record', format: 'mp4', duration: '5', video_clock: 'live', viewport_width: '320', viewport_height: '240' });
    await until(async () => (await statusOf(instanceB, body.id)).status === 'processing', 'the recording to start', 15_000);
    const killed = processTree(worker.child.pid as number);
    expect(killed.length).toBeGreaterThan(1);
    await worker.killGroup();
    // Its Chromium (in a process group of its own) sees its pipe close and exits: no orphan stays.
    await until(() => killed.every((pid) => !isAlive(pid)), 'the killed worker and its browser to be gone', 10_000);
    worker = await startBuiltWorker(env);
    const status = await finished(instanceB, body.id, 90_000);
    expect(status.status).toBe('completed');
    const file = path.join(storageDir, 'recovered.mp4');
    await writeFile(file, Buffer.from(await (await fetch(`${instanceB.origin}${status.url}`)).arrayBuffer()));
    const video = await probe(file);
    expect(video).toMatchObject({ codec: 'h264', width: 320, height: 240, frames: 150 });
    expect(video.duration).toBeCloseTo(5, 0);
    expect(await quotaLeft()).toBe(before - 1);
  }, 150_000);

  it('on SIGTERM a worker finishes its running capture before it exits', async () => {
    const { body } = await enqueue(instanceA, { url: fixtures.url('/solid?color=%2300ff00'), delay: '2000' });
    await until(async () => (await statusOf(instanceB, body.id)).status === 'processing', 'the capture to start', 15_000);
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(await statusOf(instanceB, body.id)).toMatchObject({ status: 'completed' });
  });

  it('runs jobs inside the service with serve --worker', async () => {
    const service = await startBuiltService('fastify', env, ['--worker']);
    try {
      const { body } = await enqueue(service, { url: fixtures.url('/solid?color=%2300ff00'), format: 'webp' });
      expect(await finished(service, body.id)).toMatchObject({ status: 'completed', format: 'WEBP' });
    } finally {
      await service.stop();
    }
    expect(await service.exited).toBe(0);
  });
});
