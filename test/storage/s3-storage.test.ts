import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaptureHttp, createNodeListener, type CaptureEngine, type CaptureStorage } from '../../src/index.js';
import { s3Storage, type S3Storage } from '../../src/storage/s3-storage.js';
import { createTestEngine } from '../helpers/engine.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startApp, type RunningApp } from '../helpers/adapters.js';
import { startRelay, startS3rver, type HandledRequest, type Relay, type TestS3 } from '../helpers/s3rver.js';
import { VIDEO_ROUTES, ffmpegChildren, MP4_MAGIC } from '../plugins/video-fixtures.js';

/**
 * Two engines that share nothing but an s3rver bucket: one stores, the other serves. The serving
 * one reaches S3 through a relay the tests take down.
 */

const KEY = 'ce_test_s3_storage_pro_0123456789abcdef';
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const PREFIX = 'shared';
const small = { viewport_width: '320', viewport_height: '240' };

let s3: TestS3;
let relay: Relay;
let fixtures: FixtureServer;
let storer: CaptureEngine;
let server: CaptureEngine;
let storerApp: RunningApp;
let serverApp: RunningApp;
let presigning: S3Storage;
let presigningServer: Server;
let presigningOrigin: string;
/** Every put of the storing engine, to wait until an abandoned one has cleaned up. */
const puts: Promise<void>[] = [];

beforeAll(async () => {
  s3 = await startS3rver();
  relay = await startRelay(s3.endpoint);
  fixtures = await startFixtureServer(VIDEO_ROUTES);
  const stored = s3Storage({ ...s3.connection, bucket: s3.bucket, prefix: PREFIX });
  const observed: CaptureStorage = {
    ...stored,
    put: (...args) => {
      const put = stored.put(...args);
      puts.push(put.catch(() => undefined));
      return put;
    },
  };
  const options = { apiKeys: [{ key: KEY, tier: 'PRO' as const }], tiers: { PRO: { requestsPerMinute: 1000 } } };
  storer = await createTestEngine({ storage: observed });
  server = await createTestEngine({ storage: s3Storage({ ...s3.connection, endpoint: relay.endpoint, bucket: s3.bucket, prefix: PREFIX }) });
  storerApp = await startApp('node', createCaptureHttp(storer, options));
  serverApp = await startApp('node', createCaptureHttp(server, options));
  // The serving engine's files endpoint once more, on a storage that redirects to presigned URLs.
  presigning = s3Storage({ ...s3.connection, bucket: s3.bucket, prefix: PREFIX, presign: true });
  presigningServer = createServer(createNodeListener(createCaptureHttp(server, { storage: presigning })));
  await new Promise<void>((resolve) => presigningServer.listen(0, '127.0.0.1', resolve));
  presigningOrigin = `http://127.0.0.1:${(presigningServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  if (presigningServer) {
    presigningServer.closeAllConnections();
    await new Promise<void>((resolve) => presigningServer.close(() => resolve()));
  }
  await presigning?.close?.();
  await storerApp?.close();
  await serverApp?.close();
  await storer?.close();
  await server?.close();
  await fixtures?.close();
  await relay?.close();
  await s3?.close();
});

const capture = (origin: string, query: Record<string, string>): Promise<Response> =>
  fetch(`${origin}/api/v1/capture?${new URLSearchParams({ response_type: 'json', ...small, ...query })}`, { headers: { 'X-API-Key': KEY } });
const stored = async (query: Record<string, string>): Promise<{ url: string; size: number; id: string }> => {
  const response = await capture(storerApp.origin, query);
  expect(response.status).toBe(200);
  return (await response.json()) as { url: string; size: number; id: string };
};
const body = async (response: Response): Promise<Buffer> => Buffer.from(await response.arrayBuffer());

describe('S3 storage shared by two engines', () => {
  it('stores a png and an mp4 on one engine; the other serves them, byte ranges too', async () => {
    const png = await stored({ url: fixtures.url('/solid') });
    expect(png.url).toMatch(/^\/api\/files\/\d{4}-\d{2}-\d{2}\/[\w-]+\.png$/);
    const mp4 = await stored({ url: fixtures.url('/fade'), scenario: 'record', format: 'mp4', duration: '1' });
    expect(mp4.url).toMatch(/\.mp4$/);
    const keyOf = (url: string): string => `${PREFIX}/${url.slice('/api/files/'.length)}`;
    expect(await s3.keys(`${PREFIX}/`)).toEqual(expect.arrayContaining([keyOf(png.url), keyOf(mp4.url)]));

    const image = await fetch(`${serverApp.origin}${png.url}`);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(image.headers.get('content-length')).toBe(String(png.size));
    const imageBytes = await body(image);
    expect(imageBytes.length).toBe(png.size);
    expect(imageBytes.subarray(0, 8)).toEqual(PNG_MAGIC);

    const range = await fetch(`${serverApp.origin}${mp4.url}`, { headers: { Range: 'bytes=4-7' } });
    expect(range.status).toBe(206);
    expect(range.headers.get('content-type')).toBe('video/mp4');
    expect(range.headers.get('content-range')).toBe(`bytes 4-7/${mp4.size}`);
    expect(await body(range)).toEqual(MP4_MAGIC);
    const video = await fetch(`${serverApp.origin}${mp4.url}`);
    expect(video.status).toBe(200);
    expect((await body(video)).length).toBe(mp4.size);

    const unknown = await fetch(`${serverApp.origin}${png.url.replace(/[\w-]+\.png$/, 'unknown.png')}`);
    expect(unknown.status).toBe(404);
  });

  it('with presign, answers 302 to a URL that serves the file itself', async () => {
    const png = await stored({ url: fixtures.url('/solid?color=%230000ff') });
    const redirect = await fetch(`${presigningOrigin}${png.url}`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('x-ratelimit-limit')).not.toBeNull();
    const location = redirect.headers.get('location') ?? '';
    expect(location.startsWith(`${s3.endpoint}/${s3.bucket}/${PREFIX}/`)).toBe(true);
    expect(new URL(location).searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    const file = await fetch(location);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    const bytes = await body(file);
    expect(bytes.length).toBe(png.size);
    expect(bytes.subarray(0, 8)).toEqual(PNG_MAGIC);
    // A player following the redirect seeks with ranges there.
    const part = await fetch(`${presigningOrigin}${png.url}`, { headers: { Range: 'bytes=1-3' } });
    expect(part.status).toBe(206);
    expect(await part.text()).toBe('PNG');
  });

  it('an aborted video leaves no object and no multipart upload, aborted while recording or while uploading', async () => {
    const before = await s3.keys(`${PREFIX}/`);
    const recording = new AbortController();
    const ffmpegBefore = await ffmpegChildren();
    const putsBefore = puts.length;
    const first = storer.capture({ url: fixtures.url('/fade'), scenario: 'record', format: 'mp4', duration: 10, response_type: 'json', ...small }, { signal: recording.signal });
    for (let i = 0; i < 200 && (await ffmpegChildren()) === ffmpegBefore; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await ffmpegChildren()).toBeGreaterThan(ffmpegBefore);
    recording.abort();
    await expect(first).rejects.toMatchObject({ code: 'CAPTURE_FAILED', details: { reason: 'aborted' } });
    expect(puts.length).toBe(putsBefore);

    // Aborted the moment s3rver has taken the video in: the object exists until the put takes it back.
    const uploading = new AbortController();
    let uploaded: HandledRequest | undefined;
    const onRequest = (handled: HandledRequest): void => {
      if (handled.method === 'PUT' && handled.path.endsWith('.mp4') && !uploaded) {
        uploaded = handled;
        uploading.abort();
      }
    };
    s3.requests.on('handled', onRequest);
    const second = storer.capture({ url: fixtures.url('/fade'), scenario: 'record', format: 'mp4', duration: 1, response_type: 'json', ...small }, { signal: uploading.signal });
    await expect(second).rejects.toMatchObject({ code: 'CAPTURE_FAILED', details: { reason: 'aborted' } });
    s3.requests.off('handled', onRequest);
    expect(uploaded?.status).toBe(200);
    expect(puts.length).toBe(putsBefore + 1);
    await Promise.all(puts);
    expect(await s3.keys(`${PREFIX}/`)).toEqual(before);
    expect(await s3.uploads(`${PREFIX}/`)).toEqual([]);
    expect(await s3.uploadDirectories()).toEqual([]);
  });

  it('with S3 down, captures and files answer 503 storage_unavailable with Retry-After, and nothing is stored', async () => {
    const png = await stored({ url: fixtures.url('/solid?color=%2300ff00') });
    const before = await s3.keys(`${PREFIX}/`);
    await relay.down();
    try {
      const refused = await capture(serverApp.origin, { url: fixtures.url('/solid') });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(await refused.json()).toMatchObject({ code: 'SERVICE_BUSY', reason: 'storage_unavailable' });
      const file = await fetch(`${serverApp.origin}${png.url}`);
      expect(file.status).toBe(503);
      expect(file.headers.get('retry-after')).toBe('5');
      expect(await file.json()).toMatchObject({ code: 'SERVICE_BUSY', reason: 'storage_unavailable' });
    } finally {
      await relay.up();
    }
    expect(await s3.keys(`${PREFIX}/`)).toEqual(before);
    // Back up: the same file is served again.
    const again = await fetch(`${serverApp.origin}${png.url}`);
    expect(again.status).toBe(200);
    expect((await body(again)).subarray(0, 8)).toEqual(PNG_MAGIC);
  });
});
