import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import type { CaptureEngine } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { startFixtureServer, BAND_COLOURS, LAZY_IMAGES, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, near, MAGIC } from '../helpers/pixels.js';
import { closedPort } from '../helpers/ports.js';
import { chromium } from 'playwright-core';
import { findChromium } from '../../src/browser/chromium-path.js';
import { settleRendering } from '../../plugins/scenario-static/settle-rendering.js';

let engine: CaptureEngine;
let fixtures: FixtureServer;

beforeAll(async () => {
  fixtures = await startFixtureServer();
  engine = await createTestEngine();
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
});

describe('static captures', () => {
  it.each([
    ['png', 'image/png', MAGIC.png],
    ['jpg', 'image/jpeg', MAGIC.jpg],
    ['webp', 'image/webp', MAGIC.webp],
  ] as const)('captures %s at the viewport size with the page colour', async (format, contentType, magic) => {
    const shot = await engine.capture({ url: fixtures.url('/solid?color=%2300ff00'), format, viewport_width: 640, viewport_height: 360 });
    expect(shot.contentType).toBe(contentType);
    expect(shot.data?.subarray(0, magic.length)).toEqual(magic);
    const image = await decode(shot.data as Buffer);
    expect([image.width, image.height]).toEqual([640, 360]);
    expect(near(image.at(320, 180), '#00ff00')).toBe(true);
    expect(shot.id).toMatch(/^[\w-]{22}$/);
  });

  it('maps quality to the encoder (lower quality, smaller jpg)', async () => {
    const url = fixtures.url('/bands?band=40&count=30');
    const low = await engine.capture({ url, format: 'jpg', quality: 5, viewport_width: 800, viewport_height: 800 });
    const high = await engine.capture({ url, format: 'jpg', quality: 100, viewport_width: 800, viewport_height: 800 });
    expect(low.size).toBeLessThan(high.size);
  });

  it('captures the full height of the page, band by band', async () => {
    const shot = await engine.capture({ url: fixtures.url('/bands?count=4'), full_page: true, viewport_width: 400, viewport_height: 300 });
    const image = await decode(shot.data as Buffer);
    expect([image.width, image.height]).toEqual([400, 4000]);
    for (let band = 0; band < 4; band++) expect(near(image.at(200, band * 1000 + 500), BAND_COLOURS[band] as string), `band ${band}`).toBe(true);
  });

  it('stitches pages taller than 16384 px', async () => {
    const shot = await engine.capture({ url: fixtures.url('/bands?count=20'), full_page: true, viewport_width: 200, viewport_height: 200 });
    const image = await decode(shot.data as Buffer);
    expect(image.height).toBe(20_000);
    for (const band of [0, 8, 16, 17, 19]) expect(near(image.at(100, band * 1000 + 500), BAND_COLOURS[band % 8] as string), `band ${band}`).toBe(true);
  });

  it('cuts a full-page webp at the format limit instead of returning an empty image', async () => {
    const shot = await engine.capture({ url: fixtures.url('/bands?count=20'), format: 'webp', full_page: true, viewport_width: 200, viewport_height: 200 });
    const meta = await sharp(shot.data as Buffer).metadata();
    expect(meta.format).toBe('webp');
    expect(meta.height).toBe(16_383);
    expect(shot.clippedFrom).toBe(20_000);
  });

  it('cuts a full page at full_page_max_height and reports where it was cut', async () => {
    const shot = await engine.capture({ url: fixtures.url('/bands?count=8'), full_page: true, full_page_max_height: 3000, viewport_width: 200, viewport_height: 200, response_type: 'json' });
    const stored = await engine.storage?.get(shot.storageKey as string);
    const meta = await sharp(await streamToBuffer(stored!.stream())).metadata();
    expect(meta.height).toBe(3000);
    expect(shot.clippedFrom).toBe(8000);
  });

  it('cuts a full-page jpg at libjpeg\'s 65,500 px instead of failing', async () => {
    const tall = await createTestEngine({ maxFullPageHeight: 100_000, concurrency: 1 });
    try {
      const shot = await tall.capture({ url: fixtures.url('/bands?count=70'), format: 'jpg', full_page: true, viewport_width: 100, viewport_height: 200 });
      const meta = await sharp(shot.data as Buffer).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 100, 65_500]);
      expect(shot.clippedFrom).toBe(70_000);
    } finally {
      await tall.close();
    }
  });

  it('paints content-visibility:auto sections of a full page and measures their real height', async () => {
    const shot = await engine.capture({ url: fixtures.url('/bands?count=12&cv=1'), full_page: true, viewport_width: 200, viewport_height: 500 });
    const image = await decode(shot.data as Buffer);
    expect(image.height).toBe(12_000);
    for (let band = 0; band < 12; band++) expect(near(image.at(100, band * 1000 + 500), BAND_COLOURS[band % 8] as string), `band ${band}`).toBe(true);
  });

  it('shows fixed and sticky elements once in a page stitched from tiles, where the first viewport has them', async () => {
    const shot = await engine.capture({ url: fixtures.url('/fixed-and-sticky'), full_page: true, viewport_width: 400, viewport_height: 600 });
    const image = await decode(shot.data as Buffer);
    expect(image.height).toBe(20_050);
    const runs: string[] = [];
    for (let y = 5; y < image.height; y += 10) {
      const colour = (['#0000ff', '#ff0000', '#ffff00', '#00ff00'] as const).find((c) => near(image.at(50, y), c)) ?? 'other';
      if (runs.at(-1) !== colour) runs.push(colour);
    }
    expect(runs).toEqual(['#0000ff', '#00ff00', '#ff0000', '#00ff00', '#ffff00', '#00ff00']);
  });

  it('waits for content a scroll fetches slowly, and captures the grown page', async () => {
    const shot = await engine.capture({ url: fixtures.url('/grow-on-scroll?ms=3500'), full_page: true, viewport_width: 400, viewport_height: 600 });
    const image = await decode(shot.data as Buffer);
    expect(image.height).toBe(2500);
    expect(near(image.at(200, 2400), '#0000ff')).toBe(true);
  });

  it('loads lazy images (native and IntersectionObserver) before a full-page capture', async () => {
    const shot = await engine.capture({ url: fixtures.url('/lazy'), full_page: true, viewport_width: 400, viewport_height: 600 });
    const image = await decode(shot.data as Buffer);
    let loaded = 0;
    for (let i = 0; i < LAZY_IMAGES; i++) if (near(image.at(100, i * 800 + 200), '#00ff00')) loaded++;
    expect(loaded).toBe(LAZY_IMAGES);
  });

  it('networkidle0 waits for a late request; domcontentloaded does not (without the settle step, which would)', async () => {
    const url = fixtures.url('/late-resource?ms=700');
    const early = await decode((await engine.capture({ url, settle: false, viewport_width: 200, viewport_height: 200 })).data as Buffer);
    expect(near(early.at(100, 100), '#ff0000')).toBe(true);
    const idle = await decode((await engine.capture({ url, wait_until: 'networkidle0', viewport_width: 200, viewport_height: 200 })).data as Buffer);
    expect(near(idle.at(100, 100), '#00ff00')).toBe(true);
  });

  it('networkidle2 tolerates two open connections: the page is taken before the slow request ends', async () => {
    const url = fixtures.url('/late-resource?ms=20000');
    const shot = await engine.capture({ url, wait_until: 'networkidle2', viewport_width: 200, viewport_height: 200 });
    expect(near((await decode(shot.data as Buffer)).at(100, 100), '#ff0000')).toBe(true);
  });

  it('delay waits before the capture', async () => {
    const url = fixtures.url('/later-colour?ms=2000');
    const now = await decode((await engine.capture({ url, viewport_width: 200, viewport_height: 200 })).data as Buffer);
    const later = await decode((await engine.capture({ url, delay: 3000, viewport_width: 200, viewport_height: 200 })).data as Buffer);
    expect(near(now.at(100, 100), '#ff0000')).toBe(true);
    expect(near(later.at(100, 100), '#0000ff')).toBe(true);
  });

  it('hide_selectors hides matching elements, also those inserted later', async () => {
    const url = fixtures.url('/hide');
    const plain = await decode((await engine.capture({ url, delay: 200, viewport_width: 400, viewport_height: 400 })).data as Buffer);
    expect(near(plain.at(200, 50), '#ff0000')).toBe(true);
    expect(near(plain.at(200, 350), '#0000ff')).toBe(true);
    const hidden = await decode((await engine.capture({ url, delay: 200, hide_selectors: '#banner, .late', viewport_width: 400, viewport_height: 400 })).data as Buffer);
    expect(near(hidden.at(200, 50), '#00ff00')).toBe(true);
    expect(near(hidden.at(200, 350), '#00ff00')).toBe(true);
  });

  it('hide_mode=remove (default) lets what follows move up; hide_mode=hide keeps the space', async () => {
    const url = fixtures.url('/flow');
    const size = { viewport_width: 200, viewport_height: 300 };
    const removed = await decode((await engine.capture({ url, hide_selectors: '#top', ...size })).data as Buffer);
    expect(near(removed.at(100, 50), '#0000ff')).toBe(true);
    expect(near(removed.at(100, 150), '#00ff00')).toBe(true);
    const hidden = await decode((await engine.capture({ url, hide_selectors: '#top', hide_mode: 'hide', ...size })).data as Buffer);
    expect(near(hidden.at(100, 50), '#00ff00')).toBe(true);
    expect(near(hidden.at(100, 150), '#0000ff')).toBe(true);
  });

  it('waits for web fonts before the shot: late-loading text is drawn, not left blank', async () => {
    const image = await decode((await engine.capture({ url: fixtures.url('/webfont'), viewport_width: 300, viewport_height: 150 })).data as Buffer);
    let ink = 0;
    for (let y = 0; y < image.height; y += 2) for (let x = 0; x < image.width; x += 2) if (image.at(x, y)[0] < 100) ink++;
    expect(ink, 'dark pixels of the text').toBeGreaterThan(300);
  });

  it('refuses an invalid selector with INVALID_PARAMETER', async () => {
    await expect(engine.capture({ url: fixtures.url('/hide'), hide_selectors: 'div[' })).rejects.toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'hide_selectors' } });
  });

  it('sets geolocation and grants the permission', async () => {
    const shot = await engine.capture({ url: fixtures.url('/geo'), latitude: 48.8584, longitude: 2.2945, delay: 300, viewport_width: 200, viewport_height: 200 });
    expect(near((await decode(shot.data as Buffer)).at(100, 100), '#00ff00')).toBe(true);
  });

  it('captures HTTP error pages instead of failing', async () => {
    const shot = await engine.capture({ url: fixtures.url('/status?code=500'), viewport_width: 200, viewport_height: 200 });
    expect(near((await decode(shot.data as Buffer)).at(100, 100), '#0000ff')).toBe(true);
  });

  it('answers CAPTURE_FAILED for a refused connection and CAPTURE_TIMEOUT past the budget', async () => {
    await expect(engine.capture({ url: `http://127.0.0.1:${await closedPort()}/` })).rejects.toMatchObject({ code: 'CAPTURE_FAILED', details: { reason: 'connection_refused' } });
    const quick = await createTestEngine({ timeoutMs: 4000, concurrency: 1 });
    try {
      // A budget of its own below the engine's: the same timeout, 3 s sooner.
      await expect(quick.capture({ url: fixtures.url('/never'), timeout: 1000 })).rejects.toMatchObject({ code: 'CAPTURE_TIMEOUT' });
      const after = await quick.capture({ url: fixtures.url('/solid'), viewport_width: 200, viewport_height: 200 });
      expect(after.size).toBeGreaterThan(0);
    } finally {
      await quick.close();
    }
  });

  it('stores json results and serves them back', async () => {
    const shot = await engine.capture({ url: fixtures.url('/solid'), response_type: 'json', viewport_width: 200, viewport_height: 200 });
    expect(shot.url).toMatch(/^\/api\/files\/\d{4}-\d{2}-\d{2}\/[\w-]{22}\.png$/);
    const stored = await engine.storage?.get((shot.url as string).replace('/api/files/', ''));
    expect(stored?.size).toBe(shot.size);
  });
});

describe('the wait before a viewport shot', () => {
  // Issue 49: a shot that needs no blank check is not decoded (sharp's library and threads stay out of the service).
  it('says a page needs no blank check once its content is presented or when it has nothing to show, and does for text that never paints', async () => {
    const browser = await chromium.launch({ executablePath: findChromium(), args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage();
      const cdp = await page.context().newCDPSession(page);
      const settled = async (body: string): Promise<boolean> => {
        await page.goto(`data:text/html,${encodeURIComponent(`<!doctype html><body>${body}</body>`)}`);
        return settleRendering(cdp, 5_000, { frame: true, hideCaret: false });
      };
      expect(await settled('<p>Hello</p>')).toBe(true);
      expect(await settled('<style>body { background: #00ff00 }</style><script>void 0</script>')).toBe(true);
      expect(await settled('<p style="visibility: hidden">Hello</p>')).toBe(false);
    } finally {
      await browser.close();
    }
  });
});

async function streamToBuffer(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}
