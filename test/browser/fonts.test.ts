import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, type DecodedImage } from '../helpers/pixels.js';

/**
 * Text in scripts the default fonts lack must come out as glyphs, not as "tofu" boxes: the set-up
 * installs Noto Color Emoji and Noto CJK. A missing glyph is drawn as the same box whatever the
 * character, so two different characters that render alike are boxes.
 */
let fixtures: FixtureServer;
let engine: CaptureEngine;
const SIZE = { viewport_width: 200, viewport_height: 200 };

beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/glyph': (req, res) => {
      const text = new URL(req.url ?? '/', 'http://x').searchParams.get('text') ?? '';
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><meta charset="utf-8"><body style="margin:0;background:#fff">
        <div style="font:140px/200px sans-serif;color:#000;text-align:center">${text}</div></body>`);
    },
  });
  engine = await createTestEngine();
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
});

async function glyph(text: string): Promise<DecodedImage> {
  return decode((await engine.capture({ url: fixtures.url(`/glyph?text=${encodeURIComponent(text)}`), ...SIZE })).data as Buffer);
}

function pixels(image: DecodedImage, keep: (rgb: [number, number, number]) => boolean): number {
  let count = 0;
  for (let y = 0; y < image.height; y++) for (let x = 0; x < image.width; x++) if (keep(image.at(x, y))) count++;
  return count;
}

/** Pixels whose brightness differs clearly between two images of the same size. */
function difference(a: DecodedImage, b: DecodedImage): number {
  let count = 0;
  for (let y = 0; y < a.height; y++) for (let x = 0; x < a.width; x++) if (Math.abs(a.at(x, y)[0] - b.at(x, y)[0]) > 64) count++;
  return count;
}

describe('fonts', () => {
  it('draws emoji in colour', async () => {
    const apple = await glyph('🍎');
    const red = pixels(apple, ([r, g, b]) => r > 150 && g < 90 && b < 90);
    expect(red, 'red pixels of the apple emoji').toBeGreaterThan(1000);
  });

  it('draws CJK characters as distinct glyphs, not boxes', async () => {
    const [middle, language, kana] = await Promise.all([glyph('中'), glyph('語'), glyph('あ')]);
    for (const image of [middle, language, kana]) expect(pixels(image, ([r]) => r < 100), 'ink').toBeGreaterThan(500);
    expect(difference(middle, language), '中 and 語 differ').toBeGreaterThan(500);
    expect(difference(language, kana), '語 and あ differ').toBeGreaterThan(500);
  });
});
