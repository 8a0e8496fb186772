import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, near } from '../helpers/pixels.js';
import { closedPort } from '../helpers/ports.js';

/**
 * The egress guard as the engine applies it: a resolver that makes `public.test` look public while
 * it points at the fixture server, and a canary on another loopback port that must never be hit.
 */
let fixtures: FixtureServer;
let canary: FixtureServer;
let engine: CaptureEngine;
/** Allowed, with nothing listening. */
let gonePort: number;
const fixturePort = (): number => Number(new URL(fixtures.origin).port);
const canaryPort = (): number => Number(new URL(canary.origin).port);
const canaryHits = (): number => ['/', '/solid', '/secret', '/pixel'].reduce((sum, path) => sum + canary.hits(path), 0);

beforeAll(async () => {
  canary = await startFixtureServer();
  gonePort = await closedPort();
  fixtures = await startFixtureServer({
    '/embeds': (_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<body style="margin:0;background:#00ff00;height:100vh">
        <iframe src="http://127.0.0.1:${canaryPort()}/secret"></iframe><img src="http://canary.test:${canaryPort()}/pixel">
        <script>fetch('http://127.0.0.1:${canaryPort()}/secret').catch(() => undefined)</script></body>`),
  });
  engine = await createTestEngine({
    allowPrivateNetworks: false,
    resolver: async (host) => (host === 'public.test' || host === 'canary.test' ? ['127.0.0.1'] : []),
    allowAddress: (address, port) => address === '127.0.0.1' && (port === fixturePort() || port === gonePort),
  });
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
  await canary?.close();
});

const publicUrl = (path: string): string => `http://public.test:${fixturePort()}${path}`;

describe('egress guard in the engine', () => {
  it('captures an allowed page through the proxy', async () => {
    const shot = await engine.capture({ url: publicUrl('/solid?color=%2300ff00'), viewport_width: 100, viewport_height: 100 });
    expect(near((await decode(shot.data as Buffer)).at(50, 50), '#00ff00')).toBe(true);
  });

  it.each([
    () => `http://127.0.0.1:${canaryPort()}/secret`,
    () => `http://canary.test:${canaryPort()}/secret`,
    () => `http://localhost:${canaryPort()}/secret`,
  ])('refuses a private target before any browser work (%#)', async (target) => {
    await expect(engine.capture({ url: target() })).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED', status: 403 });
    expect(canaryHits()).toBe(0);
  });

  it.each([
    () => `http://127.0.0.1:${canaryPort()}/secret`,
    () => `http://canary.test:${canaryPort()}/secret`,
    () => `https://canary.test:${canaryPort()}/secret`,
  ])('refuses a redirect to a private address with URL_NOT_ALLOWED (%#)', async (target) => {
    const url = publicUrl(`/redirect?to=${encodeURIComponent(target())}`);
    await expect(engine.capture({ url })).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
    expect(canaryHits()).toBe(0);
  });

  it.each(['file:///etc/passwd', 'chrome://version', 'data:text/html,<p>x</p>', 'ftp://public.test/x'])('refuses a redirect to %s with URL_NOT_ALLOWED, not a 500', async (target) => {
    const url = publicUrl(`/redirect?to=${encodeURIComponent(target)}`);
    await expect(engine.capture({ url })).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED', status: 403 });
  });

  it('fails an allowed target that nothing answers as CAPTURE_FAILED (unreachable), naming it', async () => {
    await expect(engine.capture({ url: `http://public.test:${gonePort}/` })).rejects.toMatchObject({
      code: 'CAPTURE_FAILED',
      details: { reason: 'unreachable' },
      message: expect.stringContaining(`nothing answered at public.test:${gonePort}`),
    });
  });

  it('lets refused subresources (iframe, img, fetch) fail quietly while the page is captured', async () => {
    const shot = await engine.capture({ url: publicUrl('/embeds'), delay: 300, viewport_width: 100, viewport_height: 100 });
    expect(near((await decode(shot.data as Buffer)).at(90, 90), '#00ff00')).toBe(true);
    expect(canaryHits()).toBe(0);
  });
});
