import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isBuilt, killLeftoverBuiltProcesses, startBuiltService, type BuiltService } from '../helpers/built-service.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { readPdf } from '../helpers/pdf.js';
import { decode, near } from '../helpers/pixels.js';
import { MP4_MAGIC, probe } from '../plugins/video-fixtures.js';

/**
 * The smoke set every Node line runs besides the unit project (scripts/node-lines.mjs, issue 50):
 * the built service as `npm start` runs it, on the Node running this file, capturing a PNG, a PDF
 * and an mp4, and a PNG served by each framework adapter. The rest of the suite covers all of
 * it in depth, on the machine's own Node.
 */
afterAll(killLeftoverBuiltProcesses);

const KEY = 'ce_smoke_test_0123456789abcdefghij';
/** What a service must not print on any line: its own errors, or Node's word that something it uses is going away. */
const TROUBLE = /"level":"(error|fatal)"|DeprecationWarning/;
let fixtures: FixtureServer;
let scratch: string;
let service: BuiltService;

const start = (adapter: string): Promise<BuiltService> =>
  startBuiltService(adapter, { CAPTURE_API_KEYS: `${KEY}:PRO`, CAPTURE_ALLOW_PRIVATE_NETWORKS: 'true', CAPTURE_LOG_LEVEL: 'warn' });

async function capture(origin: string, query: Record<string, string>, contentType: string): Promise<Buffer> {
  const response = await fetch(`${origin}/api/v1/capture?${new URLSearchParams(query)}`, { headers: { 'X-API-Key': KEY } });
  const body = Buffer.from(await response.arrayBuffer());
  expect(response.status, body.toString().slice(0, 500)).toBe(200);
  expect(response.headers.get('content-type')).toBe(contentType);
  return body;
}

async function expectGreenPng(origin: string): Promise<void> {
  const image = await decode(await capture(origin, { url: fixtures.url('/solid?color=%2300ff00'), viewport_width: '320', viewport_height: '200' }, 'image/png'));
  expect([image.width, image.height]).toEqual([320, 200]);
  expect(near(image.at(300, 180), '#00ff00')).toBe(true);
}

beforeAll(async () => {
  fixtures = await startFixtureServer();
  scratch = await mkdtemp(path.join(os.tmpdir(), 'capture-engine-smoke-'));
  if (isBuilt()) service = await start('node');
});
afterAll(async () => {
  await service?.stop();
  await fixtures?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe.skipIf(!isBuilt())('the built service on the Node running the tests', () => {
  it('a PNG (node:http, the default adapter)', async () => {
    await expectGreenPng(service.origin);
  });

  it('a PDF', async () => {
    const pdf = readPdf(await capture(service.origin, { url: fixtures.url('/solid?color=%2300ff00'), format: 'pdf' }, 'application/pdf'));
    expect(pdf.pages).toEqual([[596, 842]]);
    expect(pdf.content).toContain('0 1 0 rg');
  });

  it('an mp4', async () => {
    const file = path.join(scratch, 'scroll.mp4');
    const video = await capture(service.origin, { url: fixtures.url('/bands'), format: 'mp4', duration: '1', viewport_width: '320', viewport_height: '240' }, 'video/mp4');
    expect(video.subarray(4, 8)).toEqual(MP4_MAGIC);
    await writeFile(file, video);
    expect(await probe(file)).toMatchObject({ codec: 'h264', width: 320, height: 240 });
    expect(service.output()).not.toMatch(TROUBLE);
  });

  // Each starts its own service: the time of these includes the start.
  it.each(['express', 'fastify', 'koa'])('a PNG served by %s', async (adapter) => {
    const served = await start(adapter);
    try {
      await expectGreenPng(served.origin);
    } finally {
      await served.stop();
    }
    expect(served.output()).not.toMatch(TROUBLE);
  });
});
