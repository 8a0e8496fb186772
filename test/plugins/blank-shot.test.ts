import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { isBlankImage } from '../../plugins/scenario-static/blank-shot.js';

const solid = (format: 'png' | 'jpeg' | 'webp') =>
  sharp({ create: { width: 1280, height: 720, channels: 3, background: '#ffffff' } }).toFormat(format).toBuffer();

describe('blank shots', () => {
  it.each(['png', 'jpeg', 'webp'] as const)('a one-colour %s is blank', async (format) => {
    expect(await isBlankImage(await solid(format))).toBe(true);
  });

  it('an image with one dark pixel, or an empty buffer, is not', async () => {
    const dot = await sharp({ create: { width: 1280, height: 720, channels: 3, background: '#ffffff' } })
      .composite([{ input: { create: { width: 1, height: 1, channels: 3, background: '#000000' } }, left: 600, top: 300 }])
      .png()
      .toBuffer();
    expect(await isBlankImage(dot)).toBe(false);
    expect(await isBlankImage(Buffer.alloc(0))).toBe(false);
  });

  it.each([
    ['the first pixel', 0, 0],
    ['the last pixel', 1279, 719],
  ])('an image that differs in one channel of %s is not', async (_name, left, top) => {
    const raw = Buffer.alloc(1280 * 720 * 4, 0xff);
    raw[(top * 1280 + left) * 4 + 2] = 0xfe;
    const png = await sharp(raw, { raw: { width: 1280, height: 720, channels: 4 } }).png().toBuffer();
    expect(await isBlankImage(png)).toBe(false);
  });

  it('an image too large to decode cheaply is taken as it is', async () => {
    const tall = await sharp({ create: { width: 2000, height: 4001, channels: 3, background: '#ffffff' } }).webp().toBuffer();
    expect(tall.length).toBeLessThan(64 * 1024);
    expect(await isBlankImage(tall)).toBe(false);
  });
});
