import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine } from '../../src/index.js';
import { parseCaptureParams } from '../../src/core/schema/capture-params.js';
import { MAX_DOWNLOAD_BYTES, MAX_DOWNLOADS } from '../../src/core/schema/download-params.js';
import { createTestEngine } from '../helpers/engine.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, near } from '../helpers/pixels.js';

/** download_from (Gotenberg's downloadFrom): a document's files fetched through the egress guard, bounded. */
let fixtures: FixtureServer;
let engine: CaptureEngine;
let seenAuthorization: string | undefined;
beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/doc/page.html': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<link rel="stylesheet" href="style.css"><body style="margin:0;height:100vh;background:#ff0000"></body>'),
    '/doc/style.css': (req, res) => {
      seenAuthorization = req.headers.authorization;
      res.writeHead(200, { 'Content-Type': 'text/css' }).end('body{background:#00ff00!important}');
    },
    '/doc/big.bin': (_req, res) => res.writeHead(200, { 'Content-Length': String(MAX_DOWNLOAD_BYTES + 1) }).end(Buffer.alloc(MAX_DOWNLOAD_BYTES + 1)),
    // A body that never ends and never says how long it is.
    '/doc/endless': (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024);
      const write = (): void => {
        while (res.write(chunk));
        res.once('drain', write);
      };
      res.on('close', () => res.removeAllListeners('drain'));
      write();
    },
    '/doc/loop': (_req, res) => res.writeHead(302, { Location: '/doc/loop' }).end(),
    '/doc/to-style': (_req, res) => res.writeHead(302, { Location: '/doc/style.css' }).end(),
  });
  engine = await createTestEngine({ timeoutMs: 15_000 });
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
});

const colourOf = async (params: Record<string, unknown>): Promise<[number, number, number]> => (await decode((await engine.capture({ viewport_width: 200, viewport_height: 100, ...params })).data as Buffer)).at(100, 50);

describe('download_from', () => {
  it('fetches the files of a document, named by their URL or their name, with the headers given', async () => {
    seenAuthorization = undefined;
    const download_from = [
      { url: fixtures.url('/doc/page.html'), name: 'index.html' },
      { url: fixtures.url('/doc/style.css'), headers: { Authorization: 'Bearer s3cr3t' } },
    ];
    expect(near(await colourOf({ download_from }), '#00ff00')).toBe(true);
    expect(seenAuthorization).toBe('Bearer s3cr3t');
  });

  it('completes uploaded files, following a redirect', async () => {
    const files = [{ name: 'index.html', content: '<link rel="stylesheet" href="style.css"><body style="margin:0;height:100vh;background:#ff0000"></body>' }];
    expect(near(await colourOf({ files, download_from: [{ url: fixtures.url('/doc/to-style'), name: 'style.css' }] }), '#00ff00')).toBe(true);
  });

  it(`stops a file over ${MAX_DOWNLOAD_BYTES} bytes, said or not, as PAYLOAD_TOO_LARGE naming download_from`, async () => {
    const index = { url: fixtures.url('/doc/page.html'), name: 'index.html' };
    await expect(engine.capture({ download_from: [index, { url: fixtures.url('/doc/big.bin') }] })).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { param: 'download_from', limit: MAX_DOWNLOAD_BYTES } });
    await expect(engine.capture({ download_from: [index, { url: fixtures.url('/doc/endless') }] })).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { param: 'download_from' } });
  });

  it('fails as CAPTURE_FAILED (reason download) on an error status or endless redirects', async () => {
    await expect(engine.capture({ download_from: [{ url: fixtures.url('/doc/missing.html'), name: 'index.html' }] })).rejects.toMatchObject({ code: 'CAPTURE_FAILED', details: { reason: 'download' } });
    await expect(engine.capture({ download_from: [{ url: fixtures.url('/doc/loop'), name: 'index.html' }] })).rejects.toMatchObject({ code: 'CAPTURE_FAILED', details: { reason: 'download' } });
  });

  it('refuses an address the egress guard refuses, before the capture begins', async () => {
    const guarded = await createTestEngine({ allowPrivateNetworks: false });
    try {
      await expect(guarded.capture({ download_from: [{ url: fixtures.url('/doc/page.html'), name: 'index.html' }] })).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
    } finally {
      await guarded.close();
    }
  });

  it('is refused with another input, without an index, naming a file twice, or with more than allowed', () => {
    const one = [{ url: 'https://files.example/index.html' }];
    const refusal = (raw: Record<string, unknown>): unknown => {
      try {
        parseCaptureParams(raw);
      } catch (error) {
        return error;
      }
      return undefined;
    };
    expect(parseCaptureParams({ download_from: one }).download_from).toEqual(one);
    expect(refusal({ url: 'https://example.com/', download_from: one })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['download_from', 'url'] } });
    expect(refusal({ download_from: [{ url: 'https://files.example/a.css' }] })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'download_from' } });
    expect(refusal({ files: [{ name: 'index.html', content: 'x' }], download_from: [{ url: 'https://files.example/x/index.html' }] })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['download_from', 'files'] } });
    expect(refusal({ download_from: Array.from({ length: MAX_DOWNLOADS + 1 }, (_, i) => ({ url: `https://files.example/${i}.html` })) })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'download_from' } });
    expect(refusal({ download_from: [{ url: 'file:///etc/passwd', name: 'index.html' }] })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'download_from' } });
    expect(refusal({ download_from: [{ url: 'https://files.example/', name: '../index.html' }] })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'download_from' } });
  });
});
