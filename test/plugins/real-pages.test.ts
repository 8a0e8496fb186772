import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { decode, near, type DecodedImage } from '../helpers/pixels.js';
import { serveDirectory, startPageServer, type PageServer } from '../../fixtures/page-server.js';

/**
 * Node's API documentation from Debian's nodejs-doc (fetched by `npm run setup`, never installed):
 * its sections use `content-visibility: auto`, which Chromium skips painting off screen, and they
 * change height once painted. A full page must show every section, at the page's real height.
 */
const DOCS = new URL('../.artifacts/real-pages/nodejs-doc/usr/share/doc/nodejs/api/', import.meta.url);

let server: PageServer;
let engine: CaptureEngine;
beforeAll(async () => {
  if (!existsSync(DOCS)) throw new Error('Real pages missing: run `npm run setup` (scripts/fetch-real-pages.sh)');
  server = await startPageServer(serveDirectory(fileURLToPath(DOCS)));
  engine = await createTestEngine({ concurrency: 1 });
});
afterAll(async () => {
  await engine?.close();
  await server?.close();
});

/** Bands of `band` px in which no pixel differs from the page background: nothing painted there. */
function blankBands(image: DecodedImage, band: number): number[] {
  const background = image.at(image.width - 1, 0);
  const blank: number[] = [];
  for (let top = 0; top + band <= image.height; top += band) {
    let ink = 0;
    for (let y = top; y < top + band && ink < 50; y += 2) {
      for (let x = 0; x < image.width; x += 3) {
        const [r, g, b] = image.at(x, y);
        if (Math.abs(r - background[0]) + Math.abs(g - background[1]) + Math.abs(b - background[2]) > 60) ink++;
      }
    }
    if (ink < 50) blank.push(top);
  }
  return blank;
}

describe('real pages: Node.js API documentation', () => {
  it('url.html comes out whole: every section painted, at its real height (content-visibility: auto)', async () => {
    const shot = await engine.capture({ url: server.url('url.html'), full_page: true, viewport_width: 1280, viewport_height: 800 });
    const image = await decode(shot.data as Buffer);
    // Before: measured unpainted (sections claim 5000 px), cut at 32,000 px, 58 of its 64 bands blank.
    expect(shot.clippedFrom).toBeUndefined();
    expect(image.height).toBeGreaterThan(32_000);
    expect(blankBands(image, 500)).toEqual([]);
    // The fixed side navigation appears once, in the first viewport, not down the whole page.
    const sideNavigation = image.at(5, 400);
    const repeated: number[] = [];
    for (let y = 1000; y < image.height; y += 500) if (near(image.at(5, y), sideNavigation, 4)) repeated.push(y);
    expect(repeated).toEqual([]);
  });
});
