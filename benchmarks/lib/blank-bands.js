// Blank bands of a screenshot: horizontal bands in which nothing is painted, i.e. no pixel
// differs from the band's background colour by more than `threshold` in any channel. The
// background of a band is its most frequent colour (counted on every 7th pixel). Only whole
// bands count: a last band shorter than `band` px is left out.
//
//   const { blank, total, width, height } = await blankBands(pngBuffer, { band: 500, threshold: 16 });

import sharp from 'sharp';

/** Most frequent colour (0xRRGGBB) of rows [top, bottom) of raw RGB `data`, every 7th pixel. */
function backgroundOf(data, width, top, bottom) {
  const counts = new Map();
  for (let i = top * width * 3; i < bottom * width * 3; i += 21) {
    const colour = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
    counts.set(colour, (counts.get(colour) ?? 0) + 1);
  }
  let best = 0;
  let bestCount = -1;
  for (const [colour, count] of counts) if (count > bestCount) [best, bestCount] = [colour, count];
  return [best >> 16, (best >> 8) & 0xff, best & 0xff];
}

/** Whether any pixel of rows [top, bottom) differs from `bg` by more than `threshold` in a channel. */
function painted(data, width, top, bottom, bg, threshold) {
  const end = bottom * width * 3;
  for (let i = top * width * 3; i < end; i += 3) {
    if (Math.abs(data[i] - bg[0]) > threshold || Math.abs(data[i + 1] - bg[1]) > threshold || Math.abs(data[i + 2] - bg[2]) > threshold) return true;
  }
  return false;
}

/** Counts the blank bands of an encoded image (PNG, JPEG, WebP), decoded with sharp to raw RGB. */
export async function blankBands(image, { band = 500, threshold = 16 } = {}) {
  // A full page can pass sharp's default pixel limit (about 268 Mpx).
  const { data, info } = await sharp(image, { limitInputPixels: false }).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  let blank = 0;
  let total = 0;
  for (let top = 0; top + band <= height; top += band, total++) {
    if (!painted(data, width, top, top + band, backgroundOf(data, width, top, top + band), threshold)) blank++;
  }
  return { blank, total, width, height };
}
