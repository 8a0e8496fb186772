import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine, CaptureInput } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, near } from '../helpers/pixels.js';

let fixtures: FixtureServer;
let engine: CaptureEngine;
let bluePng: string;
beforeAll(async () => {
  bluePng = (await sharp({ create: { width: 10, height: 10, channels: 3, background: '#0000ff' } }).png().toBuffer()).toString('base64');
  fixtures = await startFixtureServer({
    // Green on the left once /api/data answers 201 with X-Mock: yes and `hello`; an image on the right.
    '/mocked': (_req, res, q) =>
      html(
        res,
        `<body style="display:flex;height:100vh;background:#ff0000"><div id="left" style="width:150px"></div><img src="/picture.png" style="width:150px;height:200px">
        <script>fetch('${q.get('api') ?? '/api/data'}').then(async (r) => r.status === 201 && r.headers.get('x-mock') === 'yes' && (await r.text()) === 'hello' && (document.getElementById('left').style.background = '#00ff00'));</script></body>`,
      ),
    '/api/data': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('from the server'),
    '/picture.png': (_req, res) => res.writeHead(404).end(),
  });
  engine = await createTestEngine({ timeoutMs: 8000 });
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
});

const shot = async (input: Omit<CaptureInput, 'url'> & { path: string }) => decode((await engine.capture({ url: fixtures.url(input.path), viewport_width: 300, viewport_height: 200, ...input })).data as Buffer);
const API = { pattern: '*/api/data', status: 201, headers: { 'X-Mock': 'yes', 'Access-Control-Expose-Headers': 'X-Mock' }, content_type: 'text/plain', body: 'hello' };

describe("intercept (browserless's requestInterceptors)", () => {
  it('answers matching requests with the status, headers and body given, which never reach the server', async () => {
    const before = { api: fixtures.hits('/api/data'), picture: fixtures.hits('/picture.png') };
    const image = await shot({ path: '/mocked', intercept: [API, { pattern: '*/picture.png', content_type: 'image/png', body: bluePng, encoding: 'base64' }] });
    expect(near(image.at(75, 100), '#00ff00')).toBe(true);
    expect(near(image.at(225, 100), '#0000ff')).toBe(true);
    expect({ api: fixtures.hits('/api/data'), picture: fixtures.hits('/picture.png') }).toEqual(before);
  });

  it('lets every other request through to the server', async () => {
    const before = fixtures.hits('/api/data');
    const image = await shot({ path: '/mocked', intercept: [{ pattern: '*/nothing-matches-this' }] });
    expect(near(image.at(75, 100), '#ff0000')).toBe(true);
    expect(fixtures.hits('/api/data')).toBe(before + 1);
  });

  it('answers before blocking, and before the request could leave the browser (a host that does not resolve)', async () => {
    const blocked = await shot({ path: '/mocked', intercept: [API], block_requests: '*/api/*' });
    expect(near(blocked.at(75, 100), '#00ff00')).toBe(true);
    const api = 'http://api.capture-test.invalid/api/data';
    const offline = await shot({ path: `/mocked?api=${encodeURIComponent(api)}`, intercept: [{ ...API, headers: { ...API.headers, 'Access-Control-Allow-Origin': '*' } }] });
    expect(near(offline.at(75, 100), '#00ff00')).toBe(true);
  });

  it("answers the page's own document when asked", async () => {
    const image = await shot({ path: '/never-served', intercept: [{ pattern: fixtures.url('/never-served'), content_type: 'text/html', body: '<body style="margin:0;background:#0000ff"></body>' }] });
    expect(near(image.at(150, 100), '#0000ff')).toBe(true);
    expect(fixtures.hits('/never-served')).toBe(0);
  });
});
