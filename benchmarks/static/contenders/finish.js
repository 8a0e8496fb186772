// What a contender without its own option for it does after the shot, the same way for each:
// the thumbnail of the `thumb` output, resized by sharp as the engine's image_width does.

import sharp from 'sharp';

/** The shot resized to `width` px wide, aspect kept, in the job's format; the shot itself without a width. */
export async function thumbnail(shot, { thumbWidth, format, quality }) {
  if (thumbWidth === undefined) return shot;
  const resized = sharp(shot).resize({ width: thumbWidth });
  if (format === 'jpg') return resized.jpeg({ quality }).toBuffer();
  if (format === 'webp') return resized.webp({ quality }).toBuffer();
  return resized.png().toBuffer();
}
