import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine, CaptureInput } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, near } from '../helpers/pixels.js';

let fixtures: FixtureServer;
let engine: CaptureEngine;
/** The X-Capture-Test header each path was requested with, as the fixture server saw it. */
const seenHeader = new Map<string, string | undefined>();
beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/with-third-party': (req, res) => {
      seenHeader.set('/with-third-party', req.headers['x-capture-test'] as string | undefined);
      const port = new URL(fixtures.origin).port;
      const cookie = String(req.headers.cookie ?? '');
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<body style="margin:0;height:100vh;background:${cookie.includes('session=abc') ? '#00ff00' : '#ff0000'}">
        <img src="http://localhost:${port}/third-party.png"></body>`);
    },
    '/third-party.png': (req, res) => {
      seenHeader.set('/third-party.png', req.headers['x-capture-test'] as string | undefined);
      res.writeHead(404).end();
    },
  });
  engine = await createTestEngine({ timeoutMs: 8000 });
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
});

const small = { viewport_width: 300, viewport_height: 200 };
const shot = (input: Omit<CaptureInput, 'url'> & { path: string }) => engine.capture({ url: fixtures.url(input.path), ...small, ...input });
const colourAt = async (input: Omit<CaptureInput, 'url'> & { path: string }, x = 150, y = 100) => (await decode((await shot(input)).data as Buffer)).at(x, y);

describe('capture options: emulation', () => {
  it('device_scale_factor renders more pixels for the same CSS size', async () => {
    const result = await shot({ path: '/solid?color=%2300ff00', device_scale_factor: 2 });
    expect([result.width, result.height]).toEqual([600, 400]);
    const meta = await sharp(result.data as Buffer).metadata();
    expect([meta.width, meta.height]).toEqual([600, 400]);
    const page = await shot({ path: '/bands?count=2', full_page: true, device_scale_factor: 2 });
    expect(await sharp(page.data as Buffer).metadata()).toMatchObject({ width: 600, height: 4000 });
  });

  it('dark_mode makes prefers-color-scheme dark', async () => {
    expect(near(await colourAt({ path: '/media' }), '#ff0000')).toBe(true);
    expect(near(await colourAt({ path: '/media', dark_mode: true }), '#00ff00')).toBe(true);
  });

  it('reduced_motion asks for reduced motion, finishes finite animations and returns infinite ones to their start', async () => {
    expect(near(await colourAt({ path: '/motion', reduced_motion: true }), '#00ff00')).toBe(true);
    expect(near(await colourAt({ path: '/spinning', reduced_motion: true }), '#00ff00')).toBe(true);
    expect(near(await colourAt({ path: '/spinning' }), '#00ff00')).toBe(false);
    expect(near(await colourAt({ path: '/slow-fade', reduced_motion: true }), '#0000ff')).toBe(true);
    expect(near(await colourAt({ path: '/slow-fade' }), '#0000ff')).toBe(false);
  });

  it.each([
    ['ua', 'capture-test-agent/1.0', { user_agent: 'capture-test-agent/1.0' }],
    ['lang', 'fr-FR', { locale: 'fr-FR' }],
    ['accept-language', 'fr-FR', { locale: 'fr-FR' }],
    ['tz', 'Asia/Tokyo', { timezone: 'Asia/Tokyo' }],
  ] as const)('the page sees %s = %s', async (kind, expected, options) => {
    const path = `/env?kind=${kind}&expect=${encodeURIComponent(expected)}`;
    expect(near(await colourAt({ path }), '#ff0000')).toBe(true);
    expect(near(await colourAt({ path, ...options }), '#00ff00')).toBe(true);
  });
});

describe('capture options: actions', () => {
  it('wait_for_selector waits for a late element; one that never comes is 422 ELEMENT_NOT_FOUND', async () => {
    expect(near(await colourAt({ path: '/late-element', wait_for_selector: '#late' }), '#00ff00')).toBe(true);
    await expect(shot({ path: '/late-element', wait_for_selector: '#never', timeout: 2000 })).rejects.toMatchObject({ code: 'ELEMENT_NOT_FOUND', status: 422, details: { param: 'wait_for_selector', selector: '#never' } });
    await expect(shot({ path: '/late-element', wait_for_selector: 'div[' })).rejects.toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'wait_for_selector' } });
  });

  it('click clicks before the shot; styles and scripts change the page', async () => {
    expect(near(await colourAt({ path: '/click', click: '#go' }, 250, 150), '#00ff00')).toBe(true);
    expect(near(await colourAt({ path: '/solid', styles: 'body { background: #0000ff !important; }' }), '#0000ff')).toBe(true);
    expect(near(await colourAt({ path: '/solid', scripts: "document.body.style.background = '#00ff00';" }), '#00ff00')).toBe(true);
    await expect(shot({ path: '/solid', scripts: 'throw new Error("nope")' })).rejects.toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'scripts' } });
  });

  it('fail_on_http_error turns an error page into 502 http_status; metadata describes the page as format=metadata does, with its older fields', async () => {
    await expect(shot({ path: '/status?code=404', fail_on_http_error: true })).rejects.toMatchObject({ code: 'CAPTURE_FAILED', status: 502, details: { reason: 'http_status', status: 404 } });
    const described = await shot({ path: '/meta', metadata: true, response_type: 'json' });
    expect(described.page).toMatchObject({ title: 'Metadata page', final_url: fixtures.url('/meta'), status: 200, description: 'A page about itself', og_image: 'https://img.example/og.png' });
    // The same answer as format=metadata's but for the response's headers (their Date is another request's).
    const answered = JSON.parse((await shot({ path: '/meta', format: 'metadata' })).text as string) as Record<string, unknown>;
    const { headers, ...page } = described.page as NonNullable<typeof described.page>;
    expect(page).toEqual({ ...answered, headers: undefined, og_image: 'https://img.example/og.png' });
    expect(headers?.['content-type']).toMatch(/^text\/html/);
  });
});

describe('capture options: headers and cookies', () => {
  it('headers go to the target\'s origin only; cookies are set for its host', async () => {
    const path = '/with-third-party';
    expect(near(await colourAt({ path, headers: '{"X-Capture-Test":"yes"}', cookies: 'session=abc; theme=dark', delay: 200 }), '#00ff00')).toBe(true);
    expect(seenHeader.get('/with-third-party')).toBe('yes');
    expect(seenHeader.has('/third-party.png')).toBe(true);
    expect(seenHeader.get('/third-party.png')).toBeUndefined();
    expect(near(await colourAt({ path, cookies: [{ name: 'session', value: 'abc', httpOnly: true }] }), '#00ff00')).toBe(true);
    await expect(shot({ path, headers: { Host: 'evil.example' } })).rejects.toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'headers' } });
    await expect(shot({ path, headers: '{not json' })).rejects.toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'headers' } });
  });
});

describe('capture options: what is taken', () => {
  it('selector captures the element\'s box, scrolled into view', async () => {
    const result = await shot({ path: '/box', selector: '#box' });
    const image = await decode(result.data as Buffer);
    expect([image.width, image.height]).toEqual([150, 80]);
    expect(near(image.at(75, 40), '#0000ff')).toBe(true);
    await expect(shot({ path: '/box', selector: '#missing' })).rejects.toMatchObject({ code: 'ELEMENT_NOT_FOUND' });
  });

  it('clip_* captures a rectangle of the page', async () => {
    const image = await decode((await shot({ path: '/box', clip_x: 40, clip_y: 1190, clip_width: 100, clip_height: 50 })).data as Buffer);
    expect([image.width, image.height]).toEqual([100, 50]);
    expect(near(image.at(2, 2), '#ffffff')).toBe(true);
    expect(near(image.at(50, 30), '#0000ff')).toBe(true);
  });

  it('omit_background leaves the page\'s own colours and makes the rest transparent', async () => {
    const result = await shot({ path: '/meta', omit_background: true });
    const { data, info } = await sharp(result.data as Buffer).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const alphaAt = (x: number, y: number): number => data[(y * info.width + x) * info.channels + 3] as number;
    expect(alphaAt(250, 150)).toBe(0);
    const opaque = await shot({ path: '/meta' });
    const plain = await sharp(opaque.data as Buffer).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    expect(plain.data[(150 * plain.info.width + 250) * plain.info.channels + 3]).toBe(255);
  });
});
