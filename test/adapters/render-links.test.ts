import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { renderLink } from '../../src/index.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { isBuilt, killLeftoverBuiltProcesses, startBuiltService, type BuiltService } from '../helpers/built-service.js';
import { closedPort } from '../helpers/ports.js';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startS3rver, type TestS3 } from '../helpers/s3rver.js';
import { decode, MAGIC, near } from '../helpers/pixels.js';
import { until } from '../helpers/wait.js';
import { keysCli, type Account } from '../helpers/key-cli.js';

// A test that fails before stopping its services leaves them running: kill what is left.
afterAll(killLeftoverBuiltProcesses);


let fixtures: FixtureServer;
let dir: string;
let keysFile: string;
let cli: ReturnType<typeof keysCli>['cli'];
let createKey: ReturnType<typeof keysCli>['createKey'];

beforeAll(async () => {
  fixtures = await startFixtureServer();
  dir = mkdtempSync(path.join(inject('testTempRoot'), 'render-links-'));
  keysFile = path.join(dir, 'keys.json');
  ({ cli, createKey } = keysCli(keysFile));
});
afterAll(async () => {
  await fixtures?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});



const bytesOf = async (response: Response): Promise<Buffer> => Buffer.from(await response.arrayBuffer());

describe.skipIf(!isBuilt())('render links and the result cache (npm start)', () => {
  // One adapter: the contract suite serves a render link on all four.
  it.each([['node', '#12ab34']])('on %s: a signed link gives the image, then hits; bad links give their codes', async (adapter, colour) => {
    const account = await createKey('PRO');
    const other = await createKey('PRO');
    const signedOnly = await createKey('PRO', '--signed-only');
    const service: BuiltService = await startBuiltService(adapter, { CAPTURE_KEYS_FILE: keysFile, CAPTURE_ALLOW_PRIVATE_NETWORKS: 'true', CAPTURE_LOG_LEVEL: 'warn' }, ['--storage-dir', path.join(dir, adapter)]);
    try {
      const page = fixtures.url(`/solid?color=${encodeURIComponent(colour)}`);
      const linkOf = (who: Account, params: Record<string, string | number | boolean> = {}, expires?: Date): string =>
        renderLink({ baseUrl: service.origin, key: who.id, signingSecret: who.signingSecret, params: { url: page, viewport_width: 320, viewport_height: 200, ...params }, expires });
      const pageFetches = (): number => fixtures.hits('/solid');
      const link = linkOf(account);
      const start = pageFetches();

      const first = await fetch(link);
      const firstBytes = await bytesOf(first);
      expect(first.status, firstBytes.toString()).toBe(200);
      expect(first.headers.get('content-type')).toBe('image/png');
      expect(firstBytes.subarray(0, 8)).toEqual(MAGIC.png);
      const image = await decode(firstBytes);
      expect([image.width, image.height]).toEqual([320, 200]);
      expect(near(image.at(160, 100), colour)).toBe(true);
      expect(first.headers.get('x-cache')).toBe('MISS');
      expect(first.headers.get('cache-control')).toMatch(/^public, max-age=86(399|400)$/);
      const etag = first.headers.get('etag') as string;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
      const quota = first.headers.get('x-quota-remaining');
      expect(pageFetches()).toBe(start + 1);

      // The second fetch is a hit: the same bytes, no page fetch, no quota, but the rate limit counts.
      const second = await fetch(link);
      expect(second.headers.get('x-cache')).toBe('HIT');
      expect(await bytesOf(second)).toEqual(firstBytes);
      expect(second.headers.get('etag')).toBe(etag);
      expect(Number(second.headers.get('age'))).toBeGreaterThanOrEqual(0);
      expect(second.headers.get('x-quota-remaining')).toBe(quota);
      expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(Number(first.headers.get('x-ratelimit-remaining')) - 1);
      // Reordering the parameters keeps the link valid (and the entry the same).
      const reordered = new URL(link);
      reordered.search = new URLSearchParams([...reordered.searchParams].reverse()).toString();
      const third = await fetch(reordered);
      expect([third.status, third.headers.get('x-cache')]).toEqual([200, 'HIT']);
      await third.arrayBuffer();
      const notModified = await fetch(link, { headers: { 'If-None-Match': etag } });
      expect(notModified.status).toBe(304);
      expect(notModified.headers.get('etag')).toBe(etag);
      expect(pageFetches()).toBe(start + 1);

      // /v1/capture with cache=true reads the same account's entry, privately.
      const viaCapture = await fetch(`${service.origin}/api/v1/capture?url=${encodeURIComponent(page)}&viewport_width=320&viewport_height=200&cache=true`, { headers: { 'X-API-Key': account.key } });
      expect([viaCapture.status, viaCapture.headers.get('x-cache')]).toEqual([200, 'HIT']);
      expect(viaCapture.headers.get('cache-control')).toMatch(/^private, max-age=\d+$/);
      expect(await bytesOf(viaCapture)).toEqual(firstBytes);

      const codeOf = async (url: string, init?: RequestInit): Promise<[number, string]> => {
        const response = await fetch(url, init);
        return [response.status, ((await response.json()) as { code: string }).code];
      };
      expect(await codeOf(link.replace('viewport_width=320', 'viewport_width=321'))).toEqual([403, 'INVALID_SIGNATURE']);
      expect(await codeOf(link.replace(`key=${account.id}`, `key=${other.id}`))).toEqual([403, 'INVALID_SIGNATURE']);
      expect(await codeOf(link.replace(`key=${account.id}`, 'key=ce_unknown1'))).toEqual([401, 'INVALID_API_KEY']);
      expect(await codeOf(linkOf(account, {}, new Date(Date.now() - 1000)))).toEqual([403, 'LINK_EXPIRED']);
      expect(await codeOf(`${service.origin}/api/v1/capture?url=${encodeURIComponent(page)}`, { headers: { 'X-API-Key': signedOnly.key } })).toEqual([401, 'INVALID_API_KEY']);
      const signedOnlyLink = await fetch(linkOf(signedOnly));
      expect([signedOnlyLink.status, signedOnlyLink.headers.get('x-cache')]).toEqual([200, 'MISS']);
      expect(await bytesOf(signedOnlyLink)).toEqual(firstBytes);
      expect(pageFetches()).toBe(start + 2);

      // Two accounts never share an entry: the other account's link captures again.
      const otherFirst = await fetch(linkOf(other));
      expect(otherFirst.headers.get('x-cache')).toBe('MISS');
      await otherFirst.arrayBuffer();
      expect(pageFetches()).toBe(start + 3);

      // fresh=true captures again and replaces the entry the plain link reads.
      const fresh = await fetch(linkOf(account, { fresh: true }));
      expect(fresh.headers.get('x-cache')).toBe('MISS');
      const freshId = fresh.headers.get('x-capture-id');
      expect(freshId).not.toBe(first.headers.get('x-capture-id'));
      await fresh.arrayBuffer();
      expect(pageFetches()).toBe(start + 4);
      const afterFresh = await fetch(link);
      expect([afterFresh.headers.get('x-cache'), afterFresh.headers.get('x-capture-id')]).toEqual(['HIT', freshId]);
      await afterFresh.arrayBuffer();

      // HEAD warms a link ahead of its first GET.
      const warm = linkOf(account, { cache_key: 'warmed' });
      const head = await fetch(warm, { method: 'HEAD' });
      expect([head.status, head.headers.get('x-cache'), head.headers.get('content-type')]).toEqual([200, 'MISS', 'image/png']);
      expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
      expect(pageFetches()).toBe(start + 5);
      const warmed = await fetch(warm);
      expect(warmed.headers.get('x-cache')).toBe('HIT');
      expect((await bytesOf(warmed)).length).toBe(Number(head.headers.get('content-length')));
      expect(pageFetches()).toBe(start + 5);

      // `capture-engine link` signs the same link; rotating the signing secret ends every earlier link.
      const printed = (await cli('link', page, '--key', account.id, '--signing-secret', account.signingSecret, '--base-url', service.origin, '--viewport-width', '320', '--viewport-height', '200')).trim();
      const viaCli = await fetch(printed);
      expect([viaCli.status, viaCli.headers.get('x-cache')]).toEqual([200, 'HIT']);
      await viaCli.arrayBuffer();
      const rotated = (await cli('keys', 'rotate-signing', account.id)).trim();
      expect(rotated).toMatch(/^[A-Za-z0-9_-]{43}$/);
      await until(async () => (await fetch(printed, { method: 'HEAD' })).status === 403, 'the rotation to reach the running service');
      expect(await codeOf(link)).toEqual([403, 'INVALID_SIGNATURE']);
      // A new secret starts a new cache: the entries made under the old one are out of reach (issue 47).
      const resigned = await fetch(renderLink({ baseUrl: service.origin, key: account.id, signingSecret: rotated, params: { url: page, viewport_width: 320, viewport_height: 200 } }));
      expect([resigned.status, resigned.headers.get('x-cache')]).toEqual([200, 'MISS']);
      await resigned.arrayBuffer();
    } finally {
      await service.stop();
    }
  });

  it('captures once for 50 identical requests spread over two instances sharing Redis and S3', async () => {
    let redis: TestRedis | undefined;
    let s3: TestS3 | undefined;
    const services: BuiltService[] = [];
    try {
      redis = await startRedis();
      s3 = await startS3rver();
      const account = await createKey('ENTERPRISE');
      const metricsPorts = [await closedPort(), await closedPort()];
      const env = (metricsPort: number): Record<string, string> => ({
        CAPTURE_KEYS_FILE: keysFile,
        CAPTURE_REDIS_URL: (redis as TestRedis).url,
        CAPTURE_ALLOW_PRIVATE_NETWORKS: 'true',
        CAPTURE_LOG_LEVEL: 'warn',
        CAPTURE_METRICS_PORT: String(metricsPort),
        CAPTURE_S3_BUCKET: (s3 as TestS3).bucket,
        CAPTURE_S3_ENDPOINT: (s3 as TestS3).endpoint,
        CAPTURE_S3_REGION: (s3 as TestS3).connection.region,
        CAPTURE_S3_FORCE_PATH_STYLE: 'true',
        AWS_ACCESS_KEY_ID: (s3 as TestS3).credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: (s3 as TestS3).credentials.secretAccessKey,
      });
      services.push(await startBuiltService('node', env(metricsPorts[0] as number)), await startBuiltService('express', env(metricsPorts[1] as number)));
      const page = fixtures.url('/solid?color=%23778899');
      const links = services.map((service) =>
        renderLink({ baseUrl: service.origin, key: account.id, signingSecret: account.signingSecret, params: { url: page, viewport_width: 300, viewport_height: 150 } }),
      );
      const start = fixtures.hits('/solid');
      const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => fetch(links[i % 2] as string)));
      const bodies = await Promise.all(responses.map(bytesOf));
      expect(responses.map((response) => response.status)).toEqual(Array(50).fill(200));
      expect(fixtures.hits('/solid')).toBe(start + 1);
      expect(new Set(responses.map((response) => response.headers.get('x-capture-id'))).size).toBe(1);
      for (const body of bodies) expect(body).toEqual(bodies[0]);
      const counted = { miss: 0, waitedOrLater: 0 };
      for (const port of metricsPorts) {
        const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        const count = (result: string): number => Number(new RegExp(`capture_cache_requests_total\\{result="${result}"\\} (\\d+)`).exec(metrics)?.[1] ?? 0);
        counted.miss += count('miss');
        // A request that reached its instance after the entry was stored is a plain hit.
        counted.waitedOrLater += count('coalesced') + count('hit');
      }
      expect(counted).toEqual({ miss: 1, waitedOrLater: 49 });
      // The entry's file is in the bucket, kept for its cache_ttl (a day here), not the storage's lifetime.
      // Named by an owner tag and random bits, never by the capture id the answers carry (issue 47).
      const objects = await s3.keys('cache/');
      expect(objects).toHaveLength(1);
      expect(objects[0]).toMatch(/^cache\/[A-Za-z0-9_-]{12}_[A-Za-z0-9_-]{22}\.png$/);
      expect(objects[0]).not.toContain(responses[0]?.headers.get('x-capture-id'));
      const head = await s3.client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: objects[0] }));
      expect(Math.abs((head.Expires?.getTime() ?? 0) - (Date.now() + 86_400_000))).toBeLessThan(120_000);
      // Both instances now answer from the shared entry.
      for (const link of links) {
        const again = await fetch(link);
        expect(again.headers.get('x-cache')).toBe('HIT');
        expect(await bytesOf(again)).toEqual(bodies[0]);
      }
      expect(fixtures.hits('/solid')).toBe(start + 1);
    } finally {
      await Promise.all(services.map((service) => service.stop()));
      await redis?.stop();
      await s3?.close();
    }
  });
});
