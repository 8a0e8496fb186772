import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { isBuilt, startBuiltService, type BuiltService, killLeftoverBuiltProcesses } from '../helpers/built-service.js';
import { decode, near } from '../helpers/pixels.js';
import { readPdf } from '../helpers/pdf.js';
import { PDFDict, PDFDocument, PDFHexString, PDFName } from '@cantoo/pdf-lib';
import { probe, frameAt, VIDEO_ROUTES } from '../plugins/video-fixtures.js';

// A test that fails before stopping its service leaves it running: kill what is left.
afterAll(killLeftoverBuiltProcesses);

/** Every capture option and output of the docs, through the built service as `npm start` runs it. */

const KEY = 'ce_options_test_0123456789abcdefg';
let fixtures: FixtureServer;
let service: BuiltService;
let dir: string;
const seenHeader = new Map<string, string | undefined>();

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'capture-options-'));
  fixtures = await startFixtureServer({
    ...VIDEO_ROUTES,
    '/with-third-party': (req, res) => {
      seenHeader.set('/with-third-party', req.headers['x-capture-test'] as string | undefined);
      const cookie = String(req.headers.cookie ?? '');
      const port = new URL(fixtures.origin).port;
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<body style="margin:0;height:100vh;background:${cookie.includes('session=abc') ? '#00ff00' : '#ff0000'}">
        <img src="http://localhost:${port}/third-party.png"></body>`);
    },
    // A page that loads one request of each kind: its stylesheet paints it green, its script
    // draws a blue box, its image and fetch are only counted.
    '/kinds': (_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<head><link rel="stylesheet" href="/kinds/style.css"></head>
        <body style="margin:0;height:100vh;background:#ff0000"><img src="/kinds/pic.svg" width="10" height="10">
        <script src="/kinds/app.js"></script><script>fetch('/kinds/data').catch(() => undefined)</script></body>`),
    // Green on a touch screen that reports a mobile user agent, red elsewhere.
    '/touch': (req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<meta name="viewport" content="width=device-width"><body style="margin:0;height:100vh;background:#ff0000"><script>
        if (navigator.maxTouchPoints > 0 && matchMedia('(pointer: coarse)').matches && ${/iPhone/.test(String(req.headers['user-agent']))}) document.body.style.background = '#00ff00';
      </script></body>`),
    // A user journey: typing "hello", choosing "Bee" and pressing Enter, then clicking go, turns
    // #state green and removes the grey #spinner 300 ms later; hovering #hover turns it blue.
    '/journey': (_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<body style="margin:0;height:100vh;background:#ffffff">
        <input id="q" style="position:absolute;left:0;top:0;width:80px;height:20px">
        <select id="s" style="position:absolute;left:90px;top:0"><option value="a">A</option><option value="b">Bee</option></select>
        <button id="go" style="position:absolute;left:160px;top:0;width:60px;height:20px">go</button>
        <div id="state" style="position:absolute;left:0;top:40px;width:100px;height:60px;background:#ff0000"></div>
        <div id="hover" style="position:absolute;left:150px;top:40px;width:150px;height:60px;background:#ff0000" onmouseenter="this.style.background='#0000ff'"></div>
        <div id="evaluated" style="position:absolute;left:0;top:120px;width:100px;height:60px;background:#ff0000"></div>
        <div id="spinner" style="position:absolute;left:200px;top:120px;width:50px;height:50px;background:#888888"></div>
        <script>
          let entered = false;
          q.addEventListener('keydown', (event) => { if (event.key === 'Enter') entered = true; });
          go.onclick = () => {
            if (q.value !== 'hello' || s.value !== 'b' || !entered) return;
            state.style.background = '#00ff00';
            setTimeout(() => spinner.remove(), 300);
          };
        </script></body>`),
    '/kinds/style.css': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/css' }).end('body{background:#00ff00 !important}'),
    '/kinds/app.js': (_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/javascript' }).end("const box = document.createElement('div'); box.style.cssText = 'position:fixed;left:0;top:100px;width:300px;height:100px;background:#0000ff'; document.body.append(box);"),
    '/kinds/pic.svg': (_req, res) => res.writeHead(200, { 'Content-Type': 'image/svg+xml' }).end('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'),
    '/kinds/data': (_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}'),
    '/third-party.png': (req, res) => {
      seenHeader.set('/third-party.png', req.headers['x-capture-test'] as string | undefined);
      res.writeHead(404).end();
    },
  });
  // A short budget, so what is never found is refused soon.
  service = await startBuiltService('express', {
    CAPTURE_API_KEYS: `${KEY}:PRO`,
    CAPTURE_ALLOW_PRIVATE_NETWORKS: 'true',
    CAPTURE_TIMEOUT_MS: '6000',
    CAPTURE_CONCURRENCY: '2',
    CAPTURE_LOG_LEVEL: 'warn',
  });
});
afterAll(async () => {
  await service?.stop();
  await fixtures?.close();
  await rm(dir, { recursive: true, force: true });
});

type Query = Record<string, string>;
const small = { viewport_width: '300', viewport_height: '200' };
const get = (fixture: string, query: Query): Promise<Response> =>
  fetch(`${service.origin}/api/v1/capture?${new URLSearchParams({ url: fixtures.url(fixture), ...small, ...query })}`, { headers: { 'X-API-Key': KEY } });
const postJson = (fixture: string, body: Record<string, unknown>): Promise<Response> =>
  fetch(`${service.origin}/api/v1/capture`, {
    method: 'POST',
    headers: { 'X-API-Key': KEY, 'Content-Type': 'application/json' },
    body: JSON.stringify({ url: fixtures.url(fixture), ...small, ...body }),
  });

async function bytes(response: Response, contentType = 'image/png'): Promise<Buffer> {
  expect(response.status, await response.clone().text().then((t) => t.slice(0, 300))).toBe(200);
  expect(response.headers.get('content-type')).toBe(contentType);
  const body = Buffer.from(await response.arrayBuffer());
  expect(Number(response.headers.get('content-length'))).toBe(body.length);
  return body;
}
/** A request the service refuses with 400 and `expected` in its answer. */
async function refused(fixture: string, query: Query, expected: Record<string, unknown>): Promise<void> {
  const response = await get(fixture, query);
  expect(response.status).toBe(400);
  expect(await response.json()).toMatchObject(expected);
}
const colourAt = async (response: Response, x = 150, y = 100): Promise<[number, number, number]> => (await decode(await bytes(response))).at(x, y);

describe.skipIf(!isBuilt())('capture options over HTTP (npm start)', () => {
  it('device_scale_factor: twice the pixels for the same CSS size', async () => {
    const image = await decode(await bytes(await get('/solid?color=%2300ff00', { device_scale_factor: '2' })));
    expect([image.width, image.height]).toEqual([600, 400]);
    expect(near(image.at(599, 399), '#00ff00')).toBe(true);
    const fourfold = await decode(await bytes(await get('/solid?color=%2300ff00', { device_scale_factor: '4' })));
    expect([fourfold.width, fourfold.height]).toEqual([1200, 800]);
  });

  it('device: the descriptor\'s viewport, scale, user agent and touch screen, each overridden by its own parameter', async () => {
    const query = new URLSearchParams({ url: fixtures.url('/touch'), device: 'iphone 15' });
    const phone = await decode(await bytes(await fetch(`${service.origin}/api/v1/capture?${query}`, { headers: { 'X-API-Key': KEY } })));
    // iPhone 15: 393x659 CSS px at 3x.
    expect([phone.width, phone.height]).toEqual([1179, 1977]);
    expect(near(phone.at(600, 1000), '#00ff00')).toBe(true);
    const overridden = await decode(await bytes(await get('/touch', { device: 'iPhone 15', viewport_width: '500', device_scale_factor: '1', has_touch: 'false' })));
    expect([overridden.width, overridden.height]).toEqual([500, 200]);
    expect(near(overridden.at(250, 100), '#ff0000')).toBe(true);
    await refused('/touch', { device: 'Nokia 3310' }, { code: 'INVALID_PARAMETER', param: 'device' });
  });

  it('selector: the element\'s box only', async () => {
    const image = await decode(await bytes(await get('/box', { selector: '#box' })));
    expect([image.width, image.height]).toEqual([150, 80]);
    expect(near(image.at(75, 40), '#0000ff')).toBe(true);
  });

  it('scroll_into_view: the element at the top of the viewport shot, with the offset kept above it', async () => {
    // #box: 150x80 blue at (50, 1200), on a white page 2000 px tall.
    const top = await decode(await bytes(await get('/box', { scroll_into_view: '#box' })));
    expect([top.width, top.height]).toEqual([300, 200]);
    expect(near(top.at(100, 5), '#0000ff')).toBe(true);
    expect(near(top.at(100, 90), '#ffffff')).toBe(true);
    const below = await decode(await bytes(await get('/box', { scroll_into_view: '#box', scroll_into_view_offset: '50' })));
    expect(near(below.at(100, 40), '#ffffff')).toBe(true);
    expect(near(below.at(100, 60), '#0000ff')).toBe(true);
    await refused('/box', { scroll_into_view: '#box', full_page: 'true' }, { code: 'INCOMPATIBLE_PARAMETERS', params: ['scroll_into_view', 'full_page'] });
  });

  it('padding and selector_all: page kept around the element, the box around every match', async () => {
    // #box: 150x80 blue at (50, 1200) on white; #dot: 10x10 red at (0, 0).
    const padded = await decode(await bytes(await get('/box', { selector: '#box', padding: '10' })));
    expect([padded.width, padded.height]).toEqual([170, 100]);
    expect(near(padded.at(3, 3), '#ffffff')).toBe(true);
    expect(near(padded.at(85, 50), '#0000ff')).toBe(true);
    const all = await decode(await bytes(await get('/box', { selector: 'body > div', selector_all: 'true' })));
    expect([all.width, all.height]).toEqual([200, 1280]);
    expect(near(all.at(5, 5), '#ff0000')).toBe(true);
    expect(near(all.at(120, 1240), '#0000ff')).toBe(true);
    await refused('/box', { padding: '10' }, { code: 'INCOMPATIBLE_PARAMETERS', params: ['padding', 'selector'] });
  });

  it('clip_x, clip_y, clip_width, clip_height: a rectangle of the page', async () => {
    const image = await decode(await bytes(await get('/box', { clip_x: '40', clip_y: '1190', clip_width: '100', clip_height: '50' })));
    expect([image.width, image.height]).toEqual([100, 50]);
    expect(near(image.at(2, 2), '#ffffff')).toBe(true);
    expect(near(image.at(50, 30), '#0000ff')).toBe(true);
  });

  it('wait_for_selector: waits for a late element; one that never comes is 422 ELEMENT_NOT_FOUND', async () => {
    expect(near(await colourAt(await get('/late-element', { wait_for_selector: '#late' })), '#00ff00')).toBe(true);
    // A budget of its own: the wait takes all of it.
    const missing = await get('/late-element', { wait_for_selector: '#never', timeout: '2000' });
    expect(missing.status).toBe(422);
    expect(await missing.json()).toMatchObject({ code: 'ELEMENT_NOT_FOUND', param: 'wait_for_selector', selector: '#never' });
  });

  it('click: clicks before the shot', async () => {
    expect(near(await colourAt(await get('/click', { click: '#go' }), 250, 150), '#00ff00')).toBe(true);
  });

  it('actions: a journey of typed text, a chosen option, a key, a click, a wait and a hover, with the pointer drawn', async () => {
    const steps = [
      { action: 'type', selector: '#q', text: 'hello' },
      { action: 'select', selector: '#s', option: 'Bee' },
      { action: 'press', selector: '#q', key: 'Enter' },
      { click: '#go' },
      { wait_for_hidden: '#spinner' },
      { hover: '#hover' },
      { action: 'evaluate', script: "document.querySelector('#evaluated').style.background = '#00ff00';" },
    ];
    const shot = await decode(await bytes(await postJson('/journey', { actions: steps, show_cursor: true })));
    expect(near(shot.at(50, 70), '#00ff00')).toBe(true);
    expect(near(shot.at(290, 90), '#0000ff')).toBe(true);
    expect(near(shot.at(50, 150), '#00ff00')).toBe(true);
    expect(near(shot.at(240, 160), '#ffffff')).toBe(true);
    // The pointer's black arrow, its tip on the middle of #hover (225, 70).
    expect(near(shot.at(228, 80), '#000000', 60)).toBe(true);
    // The same in a query, as a JSON string, without the pointer.
    const plain = await decode(await bytes(await get('/journey', { actions: JSON.stringify([{ hover: '#hover' }]) })));
    expect(near(plain.at(228, 80), '#0000ff')).toBe(true);
    expect(near(plain.at(50, 70), '#ff0000')).toBe(true);
    await refused('/journey', { actions: JSON.stringify(Array.from({ length: 51 }, () => ({ wait: 1 }))) }, { code: 'INVALID_PARAMETER', param: 'actions' });
  });

  it('actions with scenario=record: the journey plays in the video, the pointer moving to what it clicks', async () => {
    const steps = [{ wait: 600 }, { click: '#go' }];
    const response = await postJson('/click', { scenario: 'record', duration: 2, fps: 10, actions: steps, show_cursor: true });
    const file = path.join(dir, 'journey.mp4');
    await writeFile(file, await bytes(response, 'video/mp4'));
    expect(await probe(file)).toMatchObject({ frames: 20 });
    const start = await frameAt(file, 0.2);
    expect(near(start.at(250, 150), '#ff0000', 40)).toBe(true);
    // The pointer is drawn from the first frame, in the middle of the viewport (150, 100).
    expect(near((await frameAt(file, 0)).at(153, 109), '#000000', 80)).toBe(true);
    expect(near((await frameAt(file, 1.9)).at(250, 150), '#00ff00', 40)).toBe(true);
  });

  it('dark_mode and reduced_motion: the page sees the preferences', async () => {
    expect(near(await colourAt(await get('/media', { dark_mode: 'true' })), '#00ff00')).toBe(true);
    expect(near(await colourAt(await get('/slow-fade', { reduced_motion: 'true' })), '#0000ff')).toBe(true);
  });

  it('styles (GET) and scripts (POST JSON) change the page', async () => {
    expect(near(await colourAt(await get('/solid', { styles: 'body { background: #0000ff !important; }' })), '#0000ff')).toBe(true);
    expect(near(await colourAt(await postJson('/solid', { scripts: "document.body.style.background = '#00ff00';" })), '#00ff00')).toBe(true);
  });

  it.each([
    ['ua', 'capture-test-agent/1.0', { user_agent: 'capture-test-agent/1.0' }],
    ['lang', 'fr-FR', { locale: 'fr-FR' }],
    ['tz', 'Asia/Tokyo', { timezone: 'Asia/Tokyo' }],
  ])('%s: the page sees %s', async (kind, expected, query) => {
    expect(near(await colourAt(await get(`/env?kind=${kind}&expect=${encodeURIComponent(expected)}`, query)), '#00ff00')).toBe(true);
  });

  it('async=true without a job queue is 400 INVALID_PARAMETER naming what is missing', async () => {
    await refused('/solid', { async: 'true' }, { code: 'INVALID_PARAMETER', param: 'async', error: expect.stringMatching(/CAPTURE_REDIS_URL/) });
  });

  it('timezone that does not exist is 400 INVALID_PARAMETER', async () => {
    await refused('/solid', { timezone: 'Mars/Olympus' }, { code: 'INVALID_PARAMETER', param: 'timezone' });
  });

  it('headers (JSON body object) reach the target only; cookies (form, Cookie string) are set for its host', async () => {
    expect(near(await colourAt(await postJson('/with-third-party', { headers: { 'X-Capture-Test': 'yes' }, cookies: [{ name: 'session', value: 'abc' }], delay: 200 })), '#00ff00')).toBe(true);
    expect(seenHeader.get('/with-third-party')).toBe('yes');
    expect(seenHeader.has('/third-party.png')).toBe(true);
    expect(seenHeader.get('/third-party.png')).toBeUndefined();
    const form = await fetch(`${service.origin}/api/v1/capture`, {
      method: 'POST',
      headers: { 'X-API-Key': KEY, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ url: fixtures.url('/with-third-party'), ...small, cookies: 'session=abc; theme=dark' }),
    });
    expect(near(await colourAt(form), '#00ff00')).toBe(true);
    const host = await postJson('/solid', { headers: { Host: 'evil.example' } });
    expect(host.status).toBe(400);
    expect(await host.json()).toMatchObject({ code: 'INVALID_PARAMETER', param: 'headers' });
  });

  it('omit_background: transparent where the page paints nothing', async () => {
    const { data, info } = await sharp(await bytes(await get('/meta', { omit_background: 'true' }))).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    expect(data[(150 * info.width + 250) * info.channels + 3]).toBe(0);
    await refused('/meta', { omit_background: 'true', format: 'jpg' }, { code: 'INCOMPATIBLE_PARAMETERS', params: ['omit_background', 'format'] });
  });

  it('format=avif: an AV1 image of the shot, transparent with omit_background', async () => {
    const avif = await bytes(await get('/solid?color=%2300ff00', { format: 'avif' }), 'image/avif');
    expect(avif.subarray(4, 12).toString('latin1')).toBe('ftypavif');
    expect(await sharp(avif).metadata()).toMatchObject({ format: 'heif', compression: 'av1', width: 300, height: 200 });
    const { data, info } = await sharp(avif).raw().toBuffer({ resolveWithObject: true });
    expect(near([...data.subarray((100 * info.width + 150) * info.channels, (100 * info.width + 150) * info.channels + 3)] as [number, number, number], '#00ff00')).toBe(true);
    const clear = await sharp(await bytes(await get('/meta', { format: 'avif', omit_background: 'true' }), 'image/avif')).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    expect(clear.data[(150 * clear.info.width + 250) * clear.info.channels + 3]).toBe(0);
  });

  it('image_width, image_height, image_fit: the shot resized after the capture, each fit as documented', async () => {
    // 300x200: the left half red, the right half blue.
    const halves = '<body style="margin:0;display:flex;height:100vh"><div style="flex:1;background:#ff0000"></div><div style="flex:1;background:#0000ff"></div></body>';
    const resized = async (params: Record<string, unknown>, contentType = 'image/png') => {
      const response = await fetch(`${service.origin}/api/v1/capture`, {
        method: 'POST',
        headers: { 'X-API-Key': KEY, 'Content-Type': 'application/json' },
        body: JSON.stringify({ html: halves, ...small, ...params }),
      });
      const { data, info } = await sharp(await bytes(response, contentType)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      const at = (x: number, y: number): number[] => [...data.subarray((y * info.width + x) * 4, (y * info.width + x) * 4 + 4)];
      return { width: info.width, height: info.height, at };
    };
    const alone = await resized({ image_width: 150 });
    expect([alone.width, alone.height]).toEqual([150, 100]);
    const cover = await resized({ image_width: 100, image_height: 100 });
    expect([cover.width, cover.height]).toEqual([100, 100]);
    expect(near(cover.at(10, 50).slice(0, 3) as [number, number, number], '#ff0000')).toBe(true);
    expect(near(cover.at(90, 50).slice(0, 3) as [number, number, number], '#0000ff')).toBe(true);
    const contain = await resized({ image_width: 100, image_height: 100, image_fit: 'contain' });
    expect([contain.width, contain.height]).toEqual([100, 100]);
    expect(contain.at(50, 3)[3]).toBe(0);
    expect(near(contain.at(10, 50).slice(0, 3) as [number, number, number], '#ff0000')).toBe(true);
    const inside = await resized({ image_width: 100, image_height: 100, image_fit: 'inside', format: 'webp' }, 'image/webp');
    expect([inside.width, inside.height]).toEqual([100, 67]);
    const fill = await resized({ image_width: 100, image_height: 100, image_fit: 'fill', format: 'jpg' }, 'image/jpeg');
    // Stretched: red and blue from top to bottom, no padding.
    expect(near(fill.at(10, 3).slice(0, 3) as [number, number, number], '#ff0000')).toBe(true);
    expect(near(fill.at(90, 96).slice(0, 3) as [number, number, number], '#0000ff')).toBe(true);
    const padded = await resized({ image_width: 100, image_height: 100, image_fit: 'contain', format: 'jpg' }, 'image/jpeg');
    expect(near(padded.at(50, 3).slice(0, 3) as [number, number, number], '#ffffff')).toBe(true);
  });

  it('image_width and image_fit refused where they mean nothing, naming the parameters', async () => {
    await refused('/solid', { image_width: '100', format: 'pdf' }, { code: 'INCOMPATIBLE_PARAMETERS', params: ['image_width', 'format'] });
    await refused('/solid', { image_fit: 'contain' }, { code: 'INCOMPATIBLE_PARAMETERS', params: ['image_fit', 'image_width'] });
    await refused('/solid', { image_width: '0' }, { code: 'INVALID_PARAMETER', param: 'image_width' });
  });

  it('block_resources, block_requests, javascript=false: what is refused never reaches the server, what is not still works', async () => {
    const KINDS = ['/kinds/style.css', '/kinds/app.js', '/kinds/pic.svg', '/kinds/data'];
    const loaded = async (query: Query): Promise<{ counts: number[]; top: [number, number, number]; bottom: [number, number, number] }> => {
      const before = KINDS.map((kind) => fixtures.hits(kind));
      const image = await decode(await bytes(await get('/kinds', query)));
      return { counts: KINDS.map((kind, i) => fixtures.hits(kind) - (before[i] as number)), top: image.at(150, 50), bottom: image.at(150, 150) };
    };
    const all = await loaded({});
    expect(all.counts).toEqual([1, 1, 1, 1]);
    expect(near(all.top, '#00ff00') && near(all.bottom, '#0000ff')).toBe(true);
    const noImagesNorFetches = await loaded({ block_resources: 'image, xhr' });
    expect(noImagesNorFetches.counts).toEqual([1, 1, 0, 0]);
    const noStyles = await loaded({ block_resources: 'stylesheet' });
    expect(noStyles.counts).toEqual([0, 1, 1, 1]);
    expect(near(noStyles.top, '#ff0000')).toBe(true);
    const noScript = await loaded({ block_requests: '*/kinds/app.*' });
    expect(noScript.counts).toEqual([1, 0, 1, 1]);
    expect(near(noScript.bottom, '#00ff00')).toBe(true);
    // The page's scripts do not run (no box, no fetch); the caller's do.
    const scriptless = await loaded({ javascript: 'false', scripts: "document.body.insertAdjacentHTML('beforeend', '<div style=\"position:fixed;left:0;top:0;width:300px;height:100px;background:#ffff00\"></div>')" });
    expect(scriptless.counts.slice(3)).toEqual([0]);
    expect(near(scriptless.top, '#ffff00') && near(scriptless.bottom, '#00ff00')).toBe(true);
    await refused('/kinds', { block_resources: 'image,video' }, { code: 'INVALID_PARAMETER', param: 'block_resources' });
  });

  it('fail_on_http_error: an error page is 502 http_status, and captured without it', async () => {
    const failed = await get('/status?code=404', { fail_on_http_error: 'true' });
    expect(failed.status).toBe(502);
    expect(await failed.json()).toMatchObject({ code: 'CAPTURE_FAILED', reason: 'http_status', status: 404 });
    expect(near(await colourAt(await get('/status?code=404', {})), '#0000ff')).toBe(true);
  });

  it('metadata: the JSON result describes the page, and names the request as its X-Request-Id', async () => {
    const query = new URLSearchParams({ url: fixtures.url('/meta'), ...small, metadata: 'true', response_type: 'json' });
    const response = await fetch(`${service.origin}/api/v1/capture?${query}`, { headers: { 'X-API-Key': KEY, 'X-Request-Id': 'trace:meta-1' } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { url: string; page: unknown; request_id: string };
    expect([body.request_id, response.headers.get('x-request-id')]).toEqual(['trace:meta-1', 'trace:meta-1']);
    expect(body.page).toMatchObject({ title: 'Metadata page', final_url: fixtures.url('/meta'), status: 200, description: 'A page about itself', og_image: 'https://img.example/og.png', open_graph: { image: 'https://img.example/og.png' }, json_ld: [] });
    const stored = await fetch(new URL(body.url, service.origin));
    expect(stored.headers.get('content-type')).toBe('image/png');
  });

  it('format=pdf: the page printed on the paper asked for, backgrounds as asked', async () => {
    const a4 = readPdf(await bytes(await get('/solid?color=%2300ff00', { format: 'pdf' }), 'application/pdf'));
    expect(a4.pages).toEqual([[596, 842]]);
    expect(a4.content).toContain('0 1 0 rg');
    const letter = readPdf(await bytes(await get('/solid?color=%2300ff00', { format: 'pdf', pdf_paper: 'Letter', pdf_landscape: 'true', pdf_print_background: 'false' }), 'application/pdf'));
    expect(letter.pages).toEqual([[792, 612]]);
    expect(letter.content).not.toContain('0 1 0 rg');
    const tall = readPdf(await bytes(await get('/bands?count=6', { format: 'pdf' }), 'application/pdf'));
    expect(tall.pages.length).toBeGreaterThan(3);
    await refused('/solid', { format: 'pdf', scenario: 'scroll' }, { code: 'INCOMPATIBLE_PARAMETERS', params: ['format', 'scenario'] });
  });

  it('pdf_merge: the urls printed in order into one PDF, each on its own paper, under an outline entry titled by its url when its page has no title', async () => {
    const green = fixtures.url('/solid?color=%2300ff00');
    const body = JSON.stringify({ pdf_merge: [{ url: green }, { url: fixtures.url('/bands?count=6'), params: { pdf_paper: 'Letter', pdf_landscape: true, pdf_title: 'Bands' } }, { html: '<title>Last</title><p>the end</p>' }] });
    const response = await fetch(`${service.origin}/api/v1/capture`, { method: 'POST', headers: { 'X-API-Key': KEY, 'Content-Type': 'application/json' }, body });
    const merged = await PDFDocument.load(await bytes(response, 'application/pdf'), { updateMetadata: false });
    const sizes = merged.getPages().map((page) => [Math.round(page.getWidth()), Math.round(page.getHeight())]);
    expect(sizes[0]).toEqual([596, 842]);
    expect(sizes.at(-1)).toEqual([596, 842]);
    const letter = sizes.slice(1, -1);
    expect(letter.length).toBeGreaterThan(1);
    expect(new Set(letter.map(String))).toEqual(new Set(['792,612']));
    const titles: string[] = [];
    const outlines = merged.catalog.lookup(PDFName.of('Outlines'), PDFDict);
    for (let item = outlines.lookupMaybe(PDFName.of('First'), PDFDict); item; item = item.lookupMaybe(PDFName.of('Next'), PDFDict)) titles.push(item.lookup(PDFName.of('Title'), PDFHexString).decodeText());
    expect(titles).toEqual([green, 'Bands', 'Last']);
  });

  it('fps, scroll_start_delay, scroll_back, scroll_easing: the video\'s rate, a held start and a return to the top', async () => {
    const response = await get('/bands', { format: 'mp4', duration: '2', scroll_delay: '200', fps: '15', scroll_start_delay: '300', scroll_back: 'true', scroll_easing: 'linear' });
    const file = path.join(dir, 'controls.mp4');
    await writeFile(file, await bytes(response, 'video/mp4'));
    expect(await probe(file)).toMatchObject({ frames: 30, frameRate: '15/1' });
    // Held on the first band at the start, then down, then back up to it by the last frame.
    expect(near((await frameAt(file, 0.1)).at(150, 100), '#ff0000', 30)).toBe(true);
    expect(near((await frameAt(file, 1.2)).at(150, 100), '#00ff00', 30)).toBe(true);
    // The last frame is at 1.933 s.
    expect(near((await frameAt(file, 1.9)).at(150, 100), '#ff0000', 30)).toBe(true);
    await refused('/bands', { format: 'gif', fps: '20' }, { code: 'INCOMPATIBLE_PARAMETERS', params: ['fps', 'format'] });
    await refused('/bands', { scroll_back: 'true' }, { code: 'INCOMPATIBLE_PARAMETERS', params: ['scroll_back', 'scenario'] });
  });

  it('format=gif with gif_fps: an animated gif of the scroll, duration × gif_fps frames', async () => {
    const gif = await bytes(await get('/bands', { format: 'gif', duration: '2', gif_fps: '5', viewport_width: '320', viewport_height: '240' }), 'image/gif');
    expect(gif.subarray(0, 6).toString('latin1')).toBe('GIF89a');
    const file = path.join(dir, 'scroll.gif');
    await writeFile(file, gif);
    expect(await probe(file)).toMatchObject({ codec: 'gif', width: 320, height: 240, frames: 10, frameRate: '5/1' });
    expect((await probe(file)).duration).toBeCloseTo(2, 1);
    const first = await frameAt(file, 0);
    expect(near(first.at(160, 120), '#ff0000', 40)).toBe(true);
    await refused('/bands', { format: 'gif', duration: '31' }, { code: 'INCOMPATIBLE_PARAMETERS', params: ['duration', 'format'] });
  });
});
