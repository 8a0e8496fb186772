import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine, CaptureInput } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, near } from '../helpers/pixels.js';

const RED = '#ff0000';
const GREEN = '#00ff00';
const page = (body: string): string => `<body style="margin:0;height:100vh;background:${RED}">${body}</body>`;

let fixtures: FixtureServer;
let engine: CaptureEngine;
beforeAll(async () => {
  fixtures = await startFixtureServer({
    // Data that takes a while, as a search index or a chart's series does.
    '/slow-data': (_req, res) => void setTimeout(() => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"colour":"#00ff00"}'), 400),
    '/filled-by-fetch': (_req, res) => html(res, page(`<script>fetch('/slow-data').then((r) => r.json()).then(({ colour }) => (document.body.style.background = colour));</script>`)),
    '/fill-worker.js': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/javascript' }).end("fetch('/slow-data').then((r) => r.json()).then((data) => postMessage(data.colour));"),
    '/filled-by-worker': (_req, res) => html(res, page(`<script>new Worker('/fill-worker.js').onmessage = (event) => (document.body.style.background = event.data);</script>`)),
    '/fades-in': (_req, res) =>
      html(res, page(`<style>@keyframes show { from { opacity: 0 } to { opacity: 1 } }</style><div style="position:fixed;inset:0;background:${GREEN};animation:show 600ms linear"></div>`)),
    '/ticking': (_req, res) => html(res, `<body style="margin:0;height:100vh;background:${GREEN}"><p id="clock"></p><script>setInterval(() => (clock.textContent = Date.now()), 16);</script></body>`),
  });
  engine = await createTestEngine({ timeoutMs: 20_000 });
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
});

const capture = (path: string, params: Omit<CaptureInput, 'url'> = {}) => engine.capture({ url: fixtures.url(path), viewport_width: 200, viewport_height: 100, ...params });
const colourOf = async (path: string, params: Omit<CaptureInput, 'url'> = {}) => (await decode((await capture(path, params)).data as Buffer)).at(100, 50);

describe('the default settle step', () => {
  it.each(['/filled-by-fetch', '/filled-by-worker', '/fades-in'])('captures %s finished by default, unfinished with settle=false', async (path) => {
    expect(near(await colourOf(path), GREEN)).toBe(true);
    expect(near(await colourOf(path, { settle: false }), GREEN)).toBe(false);
  });

  it('captures a page that never stills once its time is up, and says so with best_effort', async () => {
    const started = Date.now();
    const result = await capture('/ticking', { best_effort: true });
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(result.incomplete).toEqual(['settle']);
    expect(near((await decode(result.data as Buffer)).at(100, 80), GREEN)).toBe(true);
  });
});
