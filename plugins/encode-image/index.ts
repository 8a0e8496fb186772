import sharp from 'sharp';
import type { CapturePlugin } from '../../src/types.js';
import { CaptureError } from '../../src/errors.js';
import { IMAGE_FORMATS, type CaptureFormat } from '../../src/schema.js';

const IMAGE_TYPES: Record<string, { contentType: string; encoding: 'png' | 'jpeg' | 'webp' }> = {
  png: { contentType: 'image/png', encoding: 'png' },
  jpg: { contentType: 'image/jpeg', encoding: 'jpeg' },
  webp: { contentType: 'image/webp', encoding: 'webp' },
};

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
        when: (params) => (IMAGE_FORMATS as readonly string[]).includes(params.format),
        run: async (ctx) => {
          const captured = ctx.captured;
          if (captured?.kind !== 'image') throw new CaptureError('INTERNAL_ERROR', 'No image was captured');
          const format = ctx.params.format as CaptureFormat;
          const target = IMAGE_TYPES[format];
          if (!target) throw new CaptureError('INTERNAL_ERROR', `No image encoder for ${format}`);
          const data = captured.encoding === target.encoding ? captured.data : await convert(captured.data, target.encoding, ctx.params.quality);
          if (data.length === 0) throw new CaptureError('CAPTURE_FAILED', 'The encoder produced an empty image', { details: { reason: 'encoder' } });
          ctx.output = {
            format,
            contentType: target.contentType,
            extension: format,
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
