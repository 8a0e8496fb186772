import { createCaptureHttp } from '../../src/index.js';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { ADAPTERS, startApp, type RunningApp } from '../helpers/adapters.js';
import { VIDEO_ROUTES, ffmpegChildren, MP4_MAGIC, WEBM_MAGIC } from '../plugins/video-fixtures.js';

/** Videos through the HTTP interface of every adapter: one engine, three apps mounted on it. */

const KEY = 'ce_test_video_pro_0123456789abcdef';
const headers = { 'X-API-Key': KEY };
const small = { viewport_width: '320', viewport_height: '240', duration: '1' };

let fixtures: FixtureServer;
let engine: CaptureEngine;
const apps = new Map<string, RunningApp>();

beforeAll(async () => {
  fixtures = await startFixtureServer(VIDEO_ROUTES);
  engine = await createTestEngine();
  const http = createCaptureHttp(engine, { apiKeys: [{ key: KEY, tier: 'PRO' }], tiers: { PRO: { requestsPerMinute: 1000 } } });
  for (const adapter of ADAPTERS) apps.set(adapter, await startApp(adapter, http));
});
afterAll(async () => {
  for (const app of apps.values()) await app.close();
  await engine?.close();
  await fixtures?.close();
});

const capture = (adapter: string, query: Record<string, string>, init: RequestInit = {}): Promise<Response> =>
  fetch(`${apps.get(adapter)?.origin}/api/v1/capture?${new URLSearchParams(query)}`, { headers, ...init });

describe.each(ADAPTERS)('video over HTTP on %s', (adapter) => {
  it('GET scroll returns the mp4 itself', async () => {
    const response = await capture(adapter, { url: fixtures.url('/bands'), format: 'mp4', ...small });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('video/mp4');
    const body = Buffer.from(await response.arrayBuffer());
    expect(Number(response.headers.get('content-length'))).toBe(body.length);
    expect(body.subarray(4, 8)).toEqual(MP4_MAGIC);
  });

  it('POST record with response_type=json stores a WEBM served with byte ranges', async () => {
    const response = await fetch(`${apps.get(adapter)?.origin}/api/v1/capture`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: fixtures.url('/fade'), scenario: 'record', format: 'webm', response_type: 'json', ...small }),
    });
    expect(response.status).toBe(200);
    const json = (await response.json()) as { url: string; format: string; status: string; size: number };
    expect(json).toMatchObject({ format: 'WEBM', status: 'completed' });
    expect(json.url).toMatch(/^\/api\/files\/.+\.webm$/);
    const file = await fetch(`${apps.get(adapter)?.origin}${json.url}`, { headers: { Range: 'bytes=0-3' } });
    expect(file.status).toBe(206);
    expect(file.headers.get('content-type')).toBe('video/webm');
    expect(Buffer.from(await file.arrayBuffer())).toEqual(WEBM_MAGIC);
  });
});

describe('video over HTTP: failures', () => {
  it('a client that disconnects mid-recording stops it: no ffmpeg left running', async () => {
    const before = await ffmpegChildren();
    const controller = new AbortController();
    const request = capture('koa', { url: fixtures.url('/fade'), scenario: 'record', viewport_width: '320', viewport_height: '240', duration: '30' }, { signal: controller.signal }).catch((e: unknown) => e);
    for (let i = 0; i < 200 && (await ffmpegChildren()) === before; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await ffmpegChildren()).toBeGreaterThan(before);
    controller.abort();
    await request;
    for (let i = 0; i < 60 && (await ffmpegChildren()) > before; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await ffmpegChildren()).toBe(before);
  });

  it('an encoder failure is a 502 CAPTURE_FAILED that is not charged to the quota', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'video-http-'));
    const fake = path.join(dir, 'ffmpeg');
    await writeFile(fake, '#!/bin/sh\necho "simulated encoder failure" >&2\nexit 1\n');
    await chmod(fake, 0o755);
    const failing = await createTestEngine({ ffmpegPath: fake });
    const app = await startApp('fastify', createCaptureHttp(failing, { apiKeys: [{ key: KEY, tier: 'PRO' }] }));
    try {
      const url = `${app.origin}/api/v1/capture`;
      const before = await fetch(`${url}?${new URLSearchParams({ url: fixtures.url('/solid'), viewport_width: '100', viewport_height: '100' })}`, { headers });
      const remaining = Number(before.headers.get('x-quota-remaining'));
      const failed = await fetch(`${url}?${new URLSearchParams({ url: fixtures.url('/solid'), format: 'mp4', ...small })}`, { headers });
      expect(failed.status).toBe(502);
      expect(await failed.json()).toMatchObject({ code: 'CAPTURE_FAILED', reason: 'encoder', error: expect.stringMatching(/simulated encoder failure/) });
      expect(Number(failed.headers.get('x-quota-remaining'))).toBe(remaining);
    } finally {
      await app.close();
      await failing.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
