import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine, CaptureInput } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, near } from '../helpers/pixels.js';

const js = (body: string) => (_req: unknown, res: import('node:http').ServerResponse) => res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(body);
const css = (body: string) => (_req: unknown, res: import('node:http').ServerResponse) => res.writeHead(200, { 'Content-Type': 'text/css' }).end(body);

let fixtures: FixtureServer;
let engine: CaptureEngine;
let seenReferer: string | undefined;
beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/plain': (_req, res) => html(res, '<body style="height:100vh;background:#ff0000"><div id="card" style="position:absolute;left:50px;top:50px;width:100px;height:60px;background:#0000ff"></div></body>'),
    // Green when a script ran before the page's own set `window.preset`.
    '/preset': (_req, res) => html(res, '<body style="height:100vh;background:#ff0000"><script>if (window.preset === 42) document.body.style.background = "#00ff00";</script></body>'),
    '/referrer': (req, res) => {
      seenReferer = req.headers.referer;
      html(res, '<body style="height:100vh;background:#ff0000"><script>if (document.referrer.startsWith("http://news.example/")) document.body.style.background = "#00ff00";</script></body>');
    },
    '/a.css': css('body{background:#ffff00!important}'),
    '/b.css': css('body{background:#00ff00!important}'),
    '/lib.js': js('window.lib = { paint: (colour) => { document.body.style.setProperty("background", colour, "important"); } };'),
    '/colour.mjs': js('export const colour = "#00ff00";'),
    '/main.mjs': js('import { colour } from "/colour.mjs"; await new Promise((resolve) => setTimeout(resolve, 100)); document.body.style.setProperty("background", colour, "important");'),
  });
  engine = await createTestEngine({ timeoutMs: 8000 });
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
});

const colourOf = async (input: Omit<CaptureInput, 'url'> & { path: string }, x = 10, y = 10) =>
  (await decode((await engine.capture({ url: fixtures.url(input.path), viewport_width: 200, viewport_height: 150, ...input })).data as Buffer)).at(x, y);

describe('init_scripts (capture-website preloadFunction, Playwright addInitScript)', () => {
  it("runs before the page's own scripts", async () => {
    expect(near(await colourOf({ path: '/preset' }), '#ff0000')).toBe(true);
    expect(near(await colourOf({ path: '/preset', init_scripts: 'window.preset = 42;' }), '#00ff00')).toBe(true);
  });
});

describe('style_urls, script_urls and scripts_type (capture-website styles, scripts and modules)', () => {
  it('loads stylesheets by URL in order, before styles', async () => {
    expect(near(await colourOf({ path: '/plain', style_urls: `${fixtures.url('/b.css')},${fixtures.url('/a.css')}` }), '#ffff00')).toBe(true);
    expect(near(await colourOf({ path: '/plain', style_urls: fixtures.url('/a.css'), styles: 'body{background:#00ff00!important}' }), '#00ff00')).toBe(true);
  });

  it('loads scripts by URL before scripts runs, which may use them', async () => {
    expect(near(await colourOf({ path: '/plain', script_urls: fixtures.url('/lib.js'), scripts: 'lib.paint("#00ff00")' }), '#00ff00')).toBe(true);
  });

  it('runs scripts and script_urls as ES modules with scripts_type=module, awaiting their imports and top-level await', async () => {
    const inline = 'import { colour } from "/colour.mjs"; await new Promise((resolve) => setTimeout(resolve, 100)); document.body.style.setProperty("background", colour, "important");';
    expect(near(await colourOf({ path: '/plain', scripts: inline, scripts_type: 'module' }), '#00ff00')).toBe(true);
    expect(near(await colourOf({ path: '/plain', script_urls: fixtures.url('/main.mjs'), scripts_type: 'module' }), '#00ff00')).toBe(true);
  });

  it('answers a module that throws as the caller\'s scripts failing, and a URL that does not load as CAPTURE_FAILED naming it', async () => {
    await expect(colourOf({ path: '/plain', scripts: 'throw new Error("broken module")', scripts_type: 'module' })).rejects.toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'scripts' } });
    await expect(colourOf({ path: '/plain', script_urls: fixtures.url('/missing.js') })).rejects.toMatchObject({ code: 'CAPTURE_FAILED', details: { reason: 'script_urls' } });
    await expect(colourOf({ path: '/plain', script_urls: fixtures.url('/missing.mjs'), scripts_type: 'module' })).rejects.toMatchObject({ code: 'CAPTURE_FAILED', details: { reason: 'script_urls' } });
    await expect(colourOf({ path: '/plain', style_urls: fixtures.url('/missing.css') })).rejects.toMatchObject({ code: 'CAPTURE_FAILED', details: { reason: 'style_urls' } });
  });

  it('refuses a URL the egress guard refuses before the capture begins', async () => {
    const guarded = await createTestEngine({ allowPrivateNetworks: false, timeoutMs: 8000 });
    try {
      await expect(guarded.capture({ html: '<body></body>', style_urls: 'http://10.0.0.1/a.css' })).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
      await expect(guarded.capture({ html: '<body></body>', script_urls: 'http://169.254.169.254/latest.js' })).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
    } finally {
      await guarded.close();
    }
  });
});

describe("referrer (Playwright goto's referer)", () => {
  it('is the referrer of the navigation: document.referrer and the Referer header', async () => {
    expect(near(await colourOf({ path: '/referrer', referrer: 'http://news.example/story' }), '#00ff00')).toBe(true);
    expect(seenReferer).toMatch(/^http:\/\/news\.example\//);
    expect(near(await colourOf({ path: '/referrer' }), '#ff0000')).toBe(true);
    expect(seenReferer).toBeUndefined();
  });
});
