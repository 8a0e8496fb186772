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
});
