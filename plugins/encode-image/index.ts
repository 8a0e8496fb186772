import sharp from 'sharp';
import type { CapturePlugin } from '../../src/core/plugin-api.js';
import { CaptureError } from '../../src/core/errors/catalogue.js';
import { isImageFormat, type ImageFormat } from '../../src/core/schema/formats.js';

/** The encoding that produces each image format. */
const ENCODINGS: Record<ImageFormat, 'png' | 'jpeg' | 'webp'> = { png: 'png', jpg: 'jpeg', webp: 'webp' };

/**
 * Delivers the requested image format. Chromium's own encoder is used when it already produced the
 * format (fastest); otherwise sharp converts. An empty image is never returned.
 */
export function encodeImage(): CapturePlugin {
  return {
    name: 'encode-image',
    stages: [
      {
        name: 'encode',
        phase: 'encode',
        leavesContextState: false,
        when: (params) => isImageFormat(params.format),
        run: async (ctx) => {
          const captured = ctx.captured;
          if (captured?.kind !== 'image') throw new CaptureError('INTERNAL_ERROR', 'No image was captured');
          const format = ctx.params.format as ImageFormat;
          const encoding = ENCODINGS[format];
          const data = captured.encoding === encoding ? captured.data : await convert(captured.data, encoding, ctx.params.quality);
          if (data.length === 0) throw new CaptureError('CAPTURE_FAILED', 'The encoder produced an empty image', { details: { reason: 'encoder' } });
          ctx.output = {
            format,
            size: data.length,
            data,
            width: captured.width,
            height: captured.height,
            clippedFrom: captured.clippedFrom,
          };
        },
      },
    ],
  };
}

function convert(data: Buffer, encoding: 'png' | 'jpeg' | 'webp', quality: number): Promise<Buffer> {
  const image = sharp(data, { limitInputPixels: false });
  if (encoding === 'jpeg') return image.jpeg({ quality, mozjpeg: false }).toBuffer();
  if (encoding === 'webp') return image.webp({ quality }).toBuffer();
  return image.png().toBuffer();
}
