import { rm } from 'node:fs/promises';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookDelivery, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { isBuilt, killLeftoverBuiltProcesses, sharedStorageDir, startBuiltService, startBuiltWorker, type BuiltProcess, type BuiltService } from '../helpers/built-service.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startS3rver, type TestS3 } from '../helpers/s3rver.js';
import { decode, MAGIC, near } from '../helpers/pixels.js';
import { isAlive, processTree } from '../helpers/processes.js';
import { until } from '../helpers/wait.js';
import type { BulkStatus } from '../../src/index.js';
import { verifyWebhook } from '../../src/client/index.js';

// A test that fails before stopping its service leaves it running: kill what is left.
afterAll(killLeftoverBuiltProcesses);

/**
 * Batches and uploads end to end: the built service and worker processes on a real redis-server,
 * webhooks to a local receiver, uploads to a local S3 (s3rver) through presigned URLs. Private
 * networks stay closed: only the fixture server, the receiver and s3rver are allowed, by address
 * and port (CAPTURE_ALLOW_ADDRESSES).
 */
const KEYS = { pro: 'ce_bulk_pro_0123456789abcdefghijk', free: 'ce_bulk_free_0123456789abcdefghij', other: 'ce_bulk_other_0123456789abcdefghi' };
const SECRET = 'bulk-webhook-secret';
const COLOURS = ['#ff0000', '#00ff00', '#0000ff', '#ffff00', '#00ffff'];
let fixtures: FixtureServer;
let redis: TestRedis;
let s3: TestS3;
let storageDir: string;
let service: BuiltService;
let worker: BuiltProcess;
let receiver: WebhookReceiver;
let env: Record<string, string>;
/** Whose capture each `/tagged` page load was, in the order they came. */
const arrivals: string[] = [];

beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/tagged': (req, res) => {
      arrivals.push(new URL(req.url ?? '/', 'http://x').searchParams.get('for') ?? '');
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<body style="margin:0;background:#00ff00;height:100vh"></body>');
    },
  });
  receiver = await startWebhookReceiver();
  [redis, s3] = await Promise.all([startRedis(), startS3rver('uploads')]);
  let tempDir: string;
  ({ storageDir, tempDir } = await sharedStorageDir('capture-bulk-'));
  const ports = [new URL(fixtures.url('/')).port, receiver.port, new URL(s3.endpoint).port];
  env = {
    TMPDIR: tempDir,
    CAPTURE_REDIS_URL: redis.url,
    CAPTURE_API_KEYS: `${KEYS.pro}:PRO,${KEYS.free}:FREE,${KEYS.other}:PRO`,
    CAPTURE_ALLOW_ADDRESSES: ports.map((port) => `127.0.0.1:${port}`).join(','),
    CAPTURE_STORAGE_DIR: storageDir,
    CAPTURE_WEBHOOK_SECRET: SECRET,
    CAPTURE_JOB_LOCK_MS: '4000',
    CAPTURE_TIMEOUT_MS: '8000',
    CAPTURE_CONCURRENCY: '2',
    CAPTURE_LOG_LEVEL: 'warn',
  };
  if (!isBuilt()) return;
  [service, worker] = await Promise.all([startBuiltService('koa', env), startBuiltWorker(env)]);
}, 60_000);
afterAll(async () => {
  await Promise.all([service?.stop(), worker?.stop()]);
  await receiver?.close();
  await Promise.all([redis?.stop(), s3?.close(), fixtures?.close()]);
  await rm(storageDir, { recursive: true, force: true });
});

const small = { viewport_width: 200, viewport_height: 120 };
const solid = (colour: string): string => fixtures.url(`/solid?color=${encodeURIComponent(colour)}`);

async function post(route: string, body: unknown, key = KEYS.pro, idempotencyKey?: string): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const response = await fetch(`${service.origin}/api/v1/${route}`, {
    method: 'POST',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json', ...(idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey }) },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}
async function batch(id: string, query = ''): Promise<BulkStatus> {
  return (await (await fetch(`${service.origin}/api/v1/bulk/${id}${query}`, { headers: { 'X-API-Key': KEYS.pro } })).json()) as BulkStatus;
}
async function settled(id: string, timeoutMs = 60_000): Promise<BulkStatus> {
  let last: BulkStatus | undefined;
  await until(async () => (last = await batch(id)).status === 'completed', `batch ${id} to settle`, timeoutMs);
  return last as BulkStatus;
}
async function quotaLeft(key = KEYS.pro): Promise<number> {
  return Number((await fetch(`${service.origin}/api/v1/openapi.json`, { headers: { 'X-API-Key': key } })).headers.get('x-quota-remaining'));
}
async function file(url: string): Promise<Buffer> {
  return Buffer.from(await (await fetch(`${service.origin}${url}`)).arrayBuffer());
}
/** A presigned PUT for `key` in the test's bucket, as a caller's own code would make it. */
const presignedPut = (key: string, contentType = 'image/png'): Promise<string> => getSignedUrl(s3.client, new PutObjectCommand({ Bucket: s3.bucket, Key: key, ContentType: contentType }), { expiresIn: 600 });
async function stored(key: string): Promise<{ bytes: Buffer; type: string | undefined }> {
  const object = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
  return { bytes: Buffer.from(await (object.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray()), type: object.ContentType };
}

describe.skipIf(!isBuilt())('bulk captures and uploads', () => {
  it('runs a 20-item batch: 202 at once, a file per item, counts and pages, one signed batch webhook, 20 from the quota', async () => {
    const before = await quotaLeft();
    const hook = receiver.url('/batch');
    const items = Array.from({ length: 20 }, (_, i) => (i % 4 === 3 ? solid(COLOURS[i % COLOURS.length] as string) : { url: solid(COLOURS[i % COLOURS.length] as string), id: `item-${i}` }));
    const queued = await post('bulk', { defaults: small, items, webhook_url: hook });
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ id: expect.stringMatching(/^[\w-]{22}$/), status_url: `/api/v1/bulk/${queued.body.id as string}`, items: 20 });
    expect(queued.headers.get('location')).toBe(queued.body.status_url);
    const id = queued.body.id as string;
    const done = await settled(id);
    expect(done).toMatchObject({ id, status: 'completed', total: 20, counts: { queued: 0, processing: 0, completed: 20, failed: 0 }, offset: 0, limit: 100 });
    expect(done.items.map((item) => item.index)).toEqual([...Array(20).keys()]);
    for (const item of done.items) {
      expect(item.item_id).toBe(item.index % 4 === 3 ? undefined : `item-${item.index}`);
      const image = await decode(await file(item.url as string));
      expect([image.width, image.height]).toEqual([200, 120]);
      expect(near(image.at(100, 60), COLOURS[item.index % COLOURS.length] as string)).toBe(true);
    }
    const page = await batch(id, '?offset=15&limit=10');
    expect(page.items.map((item) => item.index)).toEqual([15, 16, 17, 18, 19]);
    expect((await fetch(`${service.origin}/api/v1/bulk/${id}?limit=0`, { headers: { 'X-API-Key': KEYS.pro } })).status).toBe(400);
    expect((await fetch(`${service.origin}/api/v1/bulk/${id}`, { headers: { 'X-API-Key': KEYS.free } })).status).toBe(404);
    await until(() => receiver.deliveries.some((d) => d.headers['x-capture-id'] === id), 'the batch webhook', 15_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const mine = receiver.deliveries.filter((d) => d.headers['x-capture-id'] === id);
    expect(mine).toHaveLength(1);
    const [delivery] = mine as [WebhookDelivery];
    expect(delivery.headers['webhook-id']).toBe(id);
    const { secret } = (await (await fetch(`${service.origin}/api/v1/webhook-secret`, { headers: { 'X-API-Key': KEYS.pro } })).json()) as { secret: string };
    const { secret: otherSecret } = (await (await fetch(`${service.origin}/api/v1/webhook-secret`, { headers: { 'X-API-Key': KEYS.other } })).json()) as { secret: string };
    expect(await verifyWebhook(delivery.body, delivery.headers, secret)).toBe(true);
    expect(await verifyWebhook(delivery.body, delivery.headers, otherSecret)).toBe(false);
    const sent = JSON.parse(delivery.body) as BulkStatus;
    expect(sent).toMatchObject({ id, status: 'completed', total: 20, counts: { completed: 20 } });
    expect(sent.items).toHaveLength(20);
    expect(await quotaLeft()).toBe(before - 20);
  }, 90_000);

  it('stores outputs= beside each item: its status and the batch webhook list each <name>_url, and the files are served (issue 52)', async () => {
    const hook = receiver.url('/batch-outputs');
    const items = ['one', 'two'].map((word) => ({ html: `<h1>${word}</h1><p><a href="https://example.com/${word}">${word}</a></p>` }));
    const queued = await post('bulk', { defaults: { ...small, outputs: 'markdown,links' }, items, webhook_url: hook });
    expect(queued.status, JSON.stringify(queued.body)).toBe(202);
    const id = queued.body.id as string;
    const done = await settled(id);
    const listed = done.items as (BulkStatus['items'][number] & Record<'markdown_url' | 'links_url', string>)[];
    expect(listed.map(({ status }) => status)).toEqual(['completed', 'completed']);
    for (const [index, word] of ['one', 'two'].entries()) {
      const item = listed[index] as (typeof listed)[number];
      expect((await file(item.markdown_url)).toString()).toBe(`# ${word}\n\n[${word}](https://example.com/${word})\n`);
      expect(JSON.parse((await file(item.links_url)).toString())).toEqual({ links: [{ url: `https://example.com/${word}`, text: word, rel: null, same_origin: false }] });
    }
    await until(() => receiver.deliveries.some((d) => d.headers['x-capture-id'] === id), 'the batch webhook', 15_000);
    const sent = JSON.parse((receiver.deliveries.find((d) => d.headers['x-capture-id'] === id) as WebhookDelivery).body) as { items: Record<string, unknown>[] };
    expect(sent.items.map((item) => [item.markdown_url, item.links_url])).toEqual(listed.map((item) => [item.markdown_url, item.links_url]));
  });

  it('refuses a batch with a bad item by its index, one over the tier, and an unknown field, spending no quota', async () => {
    const before = await quotaLeft();
    const bad = await post('bulk', { defaults: small, items: [solid('#ff0000'), solid('#00ff00'), solid('#0000ff'), { url: solid('#ff0000'), viewport_width: 'wide' }] });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'INVALID_PARAMETER', param: 'viewport_width', index: 3, error: expect.stringMatching(/^items\[3\]: /) });
    const unsafe = await post('bulk', { items: [solid('#ff0000'), 'file:///etc/passwd'] });
    expect(unsafe.status).toBe(403);
    expect(unsafe.body).toMatchObject({ code: 'URL_NOT_ALLOWED', index: 1 });
    const freeBefore = await quotaLeft(KEYS.free);
    const tooMany = await post('bulk', { items: Array.from({ length: 11 }, () => solid('#ff0000')) }, KEYS.free);
    expect(tooMany.status).toBe(403);
    expect(tooMany.body).toMatchObject({ code: 'TIER_RESTRICTED', param: 'items', max: 10, required: 'BASIC' });
    expect((await post('bulk', { items: [solid('#ff0000')], url: solid('#ff0000') })).body).toMatchObject({ code: 'INVALID_PARAMETER', param: 'url' });
    expect((await post('bulk', { items: [] })).body).toMatchObject({ code: 'INVALID_PARAMETER', param: 'items' });
    expect(await quotaLeft()).toBe(before);
    expect(await quotaLeft(KEYS.free)).toBe(freeBefore);
  });

  it('replays a batch under its Idempotency-Key: the same id and no new quota; other items are 422', async () => {
    const before = await quotaLeft();
    const body = { defaults: small, items: [solid('#00ff00'), solid('#0000ff')] };
    const first = await post('bulk', body, KEYS.pro, 'batch-key-1');
    const again = await post('bulk', body, KEYS.pro, 'batch-key-1');
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await post('bulk', { ...body, items: [solid('#ff0000')] }, KEYS.pro, 'batch-key-1')).body).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    expect((await settled(first.body.id as string)).counts.completed).toBe(2);
    expect(await quotaLeft()).toBe(before - 2);
  });

  it('loses no item and counts no quota twice when a worker is SIGKILLed mid-batch', async () => {
    const before = await quotaLeft();
    const queued = await post('bulk', { defaults: { ...small, delay: 1000 }, items: COLOURS.concat(COLOURS).map((colour) => solid(colour)) });
    const id = queued.body.id as string;
    await until(async () => (await batch(id)).counts.completed >= 2, 'two items to complete', 30_000);
    const killed = processTree(worker.child.pid as number);
    await worker.killGroup();
    await until(() => killed.every((pid) => !isAlive(pid)), 'the killed worker and its browser to be gone', 10_000);
    worker = await startBuiltWorker(env);
    const done = await settled(id, 90_000);
    expect(done.counts).toEqual({ queued: 0, processing: 0, completed: 10, failed: 0 });
    for (const item of done.items) expect(near((await decode(await file(item.url as string))).at(100, 60), COLOURS[item.index % COLOURS.length] as string)).toBe(true);
    expect(await quotaLeft()).toBe(before - 10);
  }, 150_000);

  it('PUTs the file to a presigned URL (sync, binary or JSON, and a batch item): the exact bytes and type; a loopback address not allowed is refused', async () => {
    const key = 'sync/shot.png';
    const sync = await post('capture', { ...small, url: solid('#0000ff'), response_type: 'json', upload_url: await presignedPut(key) });
    expect(sync.status).toBe(200);
    expect(sync.body).toMatchObject({ uploaded: true, upload_status: 200, upload_attempts: 1 });
    const uploaded = await stored(key);
    expect(uploaded.type).toBe('image/png');
    expect(uploaded.bytes.equals(await file(sync.body.url as string))).toBe(true);

    const binary = await fetch(`${service.origin}/api/v1/capture`, {
      method: 'POST',
      headers: { 'X-API-Key': KEYS.pro, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...small, url: solid('#00ff00'), format: 'jpg', upload_url: await presignedPut('sync/shot.jpg', 'image/jpeg') }),
    });
    const jpeg = Buffer.from(await binary.arrayBuffer());
    expect(binary.status, jpeg.toString().slice(0, 300)).toBe(200);
    expect(binary.headers.get('x-upload-status')).toBe('200');
    expect(jpeg.subarray(0, 3).equals(MAGIC.jpg)).toBe(true);
    expect((await stored('sync/shot.jpg')).bytes.equals(jpeg)).toBe(true);

    const queued = await post('bulk', { defaults: small, items: [{ url: solid('#ffff00'), upload_url: await presignedPut('bulk/0.png') }] });
    const [item] = (await settled(queued.body.id as string)).items;
    expect(item).toMatchObject({ status: 'completed', uploaded: true, upload_status: 200 });
    expect((await stored('bulk/0.png')).bytes.equals(await file(item?.url as string))).toBe(true);

    const elsewhere = new URL(await presignedPut('refused.png'));
    elsewhere.port = new URL(redis.url).port;
    const refused = await post('capture', { ...small, url: solid('#ff0000'), upload_url: elsewhere.href });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'URL_NOT_ALLOWED' });
    expect(await s3.keys('refused')).toEqual([]);
  }, 60_000);

  // Last: the batch is left running when the file ends, and would hold up the tests after it.
  it("runs another account's lone capture after at most the two items the worker held, not behind a 200-item batch", async () => {
    const tagged = (tag: string): string => fixtures.url(`/tagged?for=${tag}`);
    arrivals.length = 0;
    const queued = await post('bulk', { defaults: small, items: Array.from({ length: 200 }, (_, i) => tagged(`a${i}`)) });
    expect(queued.status).toBe(202);
    await until(() => arrivals.length >= 4, "the batch's first items to run", 30_000);
    const before = arrivals.length;
    const lone = await post('capture', { ...small, url: tagged('b'), async: true }, KEYS.other);
    const id = lone.body.id as string;
    let status = '';
    await until(async () => ['completed', 'failed'].includes((status = (await (await fetch(`${service.origin}/api/v1/captures/${id}`, { headers: { 'X-API-Key': KEYS.other } })).json() as { status: string }).status)), 'the lone capture', 30_000);
    expect(status).toBe('completed');
    // The worker runs 2 at once: the batch's items it holds when B comes are the most that go first.
    const servedBefore = arrivals.indexOf('b') - before;
    expect(servedBefore).toBeGreaterThanOrEqual(0);
    expect(servedBefore).toBeLessThanOrEqual(2);
    expect(arrivals.filter((tag) => tag.startsWith('a')).length).toBeLessThan(100);
  }, 60_000);
});
