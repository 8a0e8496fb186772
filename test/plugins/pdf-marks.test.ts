import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import sharp from 'sharp';
import { decode, type DecodedImage } from '../helpers/pixels.js';

/** pdf_watermark and pdf_stamp on real Chromium, seen in the pages rasterised by poppler. */
let engine: CaptureEngine;
let scratch: string;

beforeAll(async () => {
  engine = await createTestEngine();
  scratch = mkdtempSync(path.join(os.tmpdir(), 'pdf-marks-test-'));
});
afterAll(async () => {
  await engine?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** Two pages, blank but for a word in the top corner, so a centred mark is all there is in the middle. */
const PAGE = '<!doctype html><html lang="en"><title>Marks</title><p>one</p><p style="break-before: page">two</p></html>';

/** Page `page` of the PDF at 30 dpi. */
async function raster(pdf: Buffer, page: number): Promise<DecodedImage> {
  const file = path.join(scratch, `${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, pdf);
  const out = `${file}-p`;
  const result = spawnSync('pdftoppm', ['-png', '-r', '30', '-f', String(page), '-l', String(page), '-singlefile', file, out]);
  if (result.status !== 0) throw new Error(String(result.stderr));
  return decode(readFileSync(`${out}.png`));
}

/** Pixels in the middle third of the page matching `test`. */
function count(image: DecodedImage, test: (rgb: [number, number, number]) => boolean): number {
  let found = 0;
  for (let y = Math.floor(image.height / 3); y < (2 * image.height) / 3; y++) for (let x = 0; x < image.width; x++) if (test(image.at(x, y))) found++;
  return found;
}
const red = ([r, g, b]: [number, number, number]): boolean => r > 150 && g < 90 && b < 90;
const grey = ([r, g, b]: [number, number, number]): boolean => r < 235 && Math.abs(r - g) < 12 && Math.abs(g - b) < 12;

describe('pdf_watermark and pdf_stamp', () => {
  it('stamps red text over the pages asked for, and nowhere else', async () => {
    const pdf = (await engine.capture({ html: PAGE, format: 'pdf', pdf_stamp: 'PAID', pdf_stamp_pages: '2' })).data as Buffer;
    expect(count(await raster(pdf, 2), red)).toBeGreaterThan(50);
    expect(count(await raster(pdf, 1), red)).toBe(0);
  });

  it('draws a grey watermark on every page, behind a coloured block that hides it', async () => {
    const plain = (await engine.capture({ html: PAGE, format: 'pdf' })).data as Buffer;
    expect(count(await raster(plain, 1), grey)).toBe(0);
    const pdf = (await engine.capture({ html: PAGE, format: 'pdf', pdf_watermark: 'DRAFT', pdf_watermark_opacity: 1 })).data as Buffer;
    expect(count(await raster(pdf, 1), grey)).toBeGreaterThan(50);
    expect(count(await raster(pdf, 2), grey)).toBeGreaterThan(50);
    const covered = '<!doctype html><html lang="en"><title>Marks</title><body style="margin:0"><div style="height:100vh;background:#0000ff"></div></body></html>';
    const hidden = (await engine.capture({ html: covered, format: 'pdf', pdf_margin_top: '0', pdf_margin_bottom: '0', pdf_margin_left: '0', pdf_margin_right: '0', pdf_watermark: 'DRAFT', pdf_watermark_opacity: 1 })).data as Buffer;
    expect(count(await raster(hidden, 1), grey)).toBe(0);
  });

  it('draws an uploaded image as a stamp on the pages asked for, and as a watermark hidden behind the page', async () => {
    const redPng = (await sharp({ create: { width: 40, height: 20, channels: 3, background: '#ff0000' } }).png().toBuffer()).toString('base64');
    const files = (html: string) => [{ name: 'index.html', content: html }, { name: 'images/red.png', content: redPng, encoding: 'base64' as const }];
    const stamped = (await engine.capture({ files: files(PAGE), format: 'pdf', pdf_stamp_image: 'images/red.png', pdf_stamp_pages: '2' })).data as Buffer;
    // Half the page's width, 40:20: over a thousand red pixels at 30 dpi.
    expect(count(await raster(stamped, 2), red)).toBeGreaterThan(1000);
    expect(count(await raster(stamped, 1), red)).toBe(0);
    const covered = '<!doctype html><html lang="en"><title>Marks</title><body style="margin:0"><div style="height:50vh;background:#0000ff"></div></body></html>';
    const margins = { pdf_margin_top: '0', pdf_margin_bottom: '0', pdf_margin_left: '0', pdf_margin_right: '0' };
    const watermarked = (await engine.capture({ files: files(covered), format: 'pdf', ...margins, pdf_watermark_image: 'images/red.png', pdf_watermark_opacity: 1, pdf_watermark_angle: 0 })).data as Buffer;
    // The image spans 41 % to 59 % of the page's height: the blue block over its top half hides it, its bottom half shows.
    const page = await raster(watermarked, 1);
    const redIn = (from: number, to: number): number => {
      let found = 0;
      for (let y = Math.floor(from * page.height); y < to * page.height; y++) for (let x = 0; x < page.width; x++) if (red(page.at(x, y))) found++;
      return found;
    };
    expect(redIn(0, 0.46)).toBe(0);
    expect(redIn(0.54, 1)).toBeGreaterThan(200);
  });

  it('refuses an image mark that is no PNG or JPEG, or too large, naming its parameter', async () => {
    const big = (await sharp({ create: { width: 4097, height: 1, channels: 3, background: '#ff0000' } }).png().toBuffer()).toString('base64');
    const errorOf = (image: { content: string; encoding?: 'base64' }) =>
      engine.capture({ files: [{ name: 'index.html', content: PAGE }, { name: 'mark.png', ...image }], format: 'pdf', pdf_watermark_image: 'mark.png' }).then(() => undefined, (error: unknown) => error);
    expect(await errorOf({ content: 'not an image' })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'pdf_watermark_image' } });
    expect(await errorOf({ content: big, encoding: 'base64' })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'pdf_watermark_image' } });
  });

  it('refuses options without their mark, marks with pdf_ua, and text the standard font cannot draw', async () => {
    const errorOf = (params: Record<string, unknown>) => engine.capture({ html: PAGE, format: 'pdf', ...params }).then(() => undefined, (error: unknown) => error);
    expect(await errorOf({ pdf_stamp_opacity: 0.5 })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['pdf_stamp_opacity', 'pdf_stamp'] } });
    expect(await errorOf({ pdf_watermark: 'x', pdf_ua: true })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['pdf_watermark', 'pdf_ua'] } });
    expect(await errorOf({ pdf_stamp: '支払済' })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'pdf_stamp' } });
    expect(await errorOf({ pdf_stamp: 'x', pdf_stamp_image: 'x.png' })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['pdf_stamp', 'pdf_stamp_image'] } });
    expect(await errorOf({ pdf_stamp_image: 'x.png' })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['pdf_stamp_image', 'files'] } });
  });
});
