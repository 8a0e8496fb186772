import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine, CaptureInput } from '../../src/index.js';
import { MAX_MASKED_ELEMENTS } from '../../src/core/schema/shot-params.js';
import { createTestEngine } from '../helpers/engine.js';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, near } from '../helpers/pixels.js';

let fixtures: FixtureServer;
let engine: CaptureEngine;
beforeAll(async () => {
  fixtures = await startFixtureServer({
    // A red box at (50, 50), 100 × 50, on green; a second one 1,500 px down; a red header fixed at the top.
    '/ads': (_req, res) =>
      html(
        res,
        `<body style="background:#00ff00;height:3000px">
          <div class="ad" style="position:absolute;left:50px;top:50px;width:100px;height:50px;background:#ff0000"></div>
          <div class="ad" style="position:absolute;left:50px;top:1500px;width:100px;height:50px;background:#ff0000"></div>
          <div id="card" style="position:absolute;left:0;top:1400px;width:300px;height:200px;background:#0000ff"></div>
          <header id="bar" style="position:fixed;left:0;top:0;width:300px;height:20px;background:#ff0000"></header>
          <div id="host" style="position:absolute;left:200px;top:50px;width:40px;height:40px"></div>
          <script>document.getElementById('host').attachShadow({ mode: 'open' }).innerHTML = '<p class="inner" style="margin:0;width:40px;height:40px;background:#ff0000"></p>';</script>
        </body>`,
      ),
    // Two frames side by side, 150 x 100 each: the left one of this origin, the right one of another
    // (localhost against 127.0.0.1), each a red .ad of 50 x 30 at (10, 10) on green; a third frame holds the left one again.
    '/framed': (_req, res) => {
      const port = new URL(fixtures.origin).port;
      const frame = (src: string, left: number) => `<iframe src="${src}" style="position:absolute;left:${left}px;top:0;width:150px;height:100px;border:0"></iframe>`;
      html(res, `<body style="margin:0;background:#00ff00">${frame('/frame-ad', 0)}${frame(`http://localhost:${port}/frame-ad`, 150)}<iframe id="outer" src="/frame-nest" style="position:absolute;left:0;top:100px;width:150px;height:100px;border:0"></iframe></body>`);
    },
    '/frame-ad': (_req, res) => html(res, '<body style="margin:0;background:#00ff00"><div class="ad" style="position:absolute;left:10px;top:10px;width:50px;height:30px;background:#ff0000"></div></body>'),
    '/frame-nest': (_req, res) => html(res, '<body style="margin:0"><iframe src="/frame-ad" style="width:150px;height:100px;border:0"></iframe></body>'),
    // More matches than one capture covers: 1,500 boxes of 2 × 2 px on a white page.
    '/many': (_req, res) => html(res, `<body style="background:#ffffff;margin:0;line-height:0">${'<i style="display:inline-block;width:2px;height:2px;margin:0 2px 2px 0"></i>'.repeat(1500)}</body>`),
  });
  engine = await createTestEngine({ timeoutMs: 8000 });
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
});

const shot = async (input: Omit<CaptureInput, 'url'> & { path: string }) => engine.capture({ url: fixtures.url(input.path), viewport_width: 300, viewport_height: 200, ...input });

/** Pixels of exactly this colour in a (lossless) image. */
async function pixelsOf(data: Buffer, colour: [number, number, number]): Promise<number> {
  const { data: raw, info } = await sharp(data).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let count = 0;
  for (let offset = 0; offset < raw.length; offset += info.channels) if (raw[offset] === colour[0] && raw[offset + 1] === colour[1] && raw[offset + 2] === colour[2]) count++;
  return count;
}

const MAGENTA: [number, number, number] = [255, 0, 255];

describe('mask (Playwright page.screenshot mask)', () => {
  it('paints a box of the default colour over every match in a viewport shot, exactly its size', async () => {
    const plain = await shot({ path: '/ads' });
    expect(await pixelsOf(plain.data as Buffer, MAGENTA)).toBe(0);
    const masked = await shot({ path: '/ads', mask: '.ad' });
    // Only the first box is in view: 100 × 50 px.
    expect(await pixelsOf(masked.data as Buffer, MAGENTA)).toBe(100 * 50);
    const image = await decode(masked.data as Buffer);
    expect(near(image.at(100, 75), MAGENTA)).toBe(true);
    expect(near(image.at(160, 75), '#00ff00')).toBe(true);
  });

  it('covers an element of a fixed box where the scrolled viewport shows it, and one in an open shadow root, in the colour asked', async () => {
    // Scrolled 1,400 px down: the fixed header is still at the top of the viewport.
    const fixed = await shot({ path: '/ads', scroll_into_view: '#card', mask: '#bar', mask_color: '#ffff00' });
    expect(near((await decode(fixed.data as Buffer)).at(150, 10), '#ffff00')).toBe(true);
    expect(await pixelsOf(fixed.data as Buffer, [255, 255, 0])).toBe(300 * 20);
    const shadow = await shot({ path: '/ads', mask: '.inner', mask_color: '#0000FF' });
    expect(near((await decode(shadow.data as Buffer)).at(220, 70), '#0000ff')).toBe(true);
    expect(await pixelsOf(shadow.data as Buffer, [0, 0, 255])).toBe(40 * 40);
  });

  it('covers matches below the fold in a full-page shot, and inside an element shot', async () => {
    const page = await shot({ path: '/ads', full_page: true, mask: '.ad' });
    expect(await pixelsOf(page.data as Buffer, MAGENTA)).toBe(2 * 100 * 50);
    const full = await decode(page.data as Buffer);
    expect(near(full.at(100, 1525), MAGENTA)).toBe(true);
    const element = await shot({ path: '/ads', selector: '#card', mask: '.ad' });
    expect([element.width, element.height]).toEqual([300, 200]);
    expect(await pixelsOf(element.data as Buffer, MAGENTA)).toBe(100 * 50);
    expect(near((await decode(element.data as Buffer)).at(100, 125), MAGENTA)).toBe(true);
  });

  it('covers elements inside frames with frame >> selector (Playwright frameLocator), same-origin and cross-origin, and frames in frames', async () => {
    const framed = { path: '/framed', wait_until: 'load' } as const;
    expect(await pixelsOf((await shot({ ...framed, mask: '.ad' })).data as Buffer, MAGENTA)).toBe(0);
    const masked = await shot({ ...framed, mask: 'iframe >> .ad' });
    // The two top frames' boxes; the nested frame is one step further.
    expect(await pixelsOf(masked.data as Buffer, MAGENTA)).toBe(2 * 50 * 30);
    const image = await decode(masked.data as Buffer);
    expect([near(image.at(35, 25), MAGENTA), near(image.at(185, 25), MAGENTA), near(image.at(35, 125), '#ff0000')]).toEqual([true, true, true]);
    const nested = await shot({ ...framed, mask: '#outer >> iframe >> .ad', mask_color: '#0000ff' });
    expect(await pixelsOf(nested.data as Buffer, [0, 0, 255])).toBe(50 * 30);
    expect(near((await decode(nested.data as Buffer)).at(35, 125), '#0000ff')).toBe(true);
    await expect(shot({ ...framed, mask: 'iframe >> div[' })).rejects.toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'mask' } });
    for (const mask of ['a >> b >> c >> d >> .ad', 'iframe >> ', '>> .ad']) {
      await expect(shot({ ...framed, mask }), mask).rejects.toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'mask' } });
    }
  });

  it(`covers at most ${MAX_MASKED_ELEMENTS} elements, however many match`, async () => {
    const masked = await shot({ path: '/many', viewport_width: 400, viewport_height: 100, full_page: true, mask: 'i' });
    expect(await pixelsOf(masked.data as Buffer, MAGENTA)).toBe(MAX_MASKED_ELEMENTS * 4);
  });

  it('answers INVALID_PARAMETER naming mask for a selector CSS cannot read', async () => {
    await expect(shot({ path: '/ads', mask: '.ad, div[' })).rejects.toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'mask' } });
  });
});
