import sharp from 'sharp';

export interface DecodedImage {
  width: number;
  height: number;
  /** [r, g, b] at a point. */
  at(x: number, y: number): [number, number, number];
}

export async function decode(data: Buffer): Promise<DecodedImage> {
  const { data: raw, info } = await sharp(data, { limitInputPixels: false }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    at: (x, y) => {
      const offset = (y * info.width + x) * info.channels;
      return [raw[offset] as number, raw[offset + 1] as number, raw[offset + 2] as number];
    },
  };
}

export function hex(colour: string): [number, number, number] {
  const value = Number.parseInt(colour.replace('#', ''), 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

/** Whether two colours match within `tolerance` per channel (lossy encoders shift colours a little). */
export function near(actual: [number, number, number], expected: [number, number, number] | string, tolerance = 12): boolean {
  const target = typeof expected === 'string' ? hex(expected) : expected;
  return actual.every((channel, i) => Math.abs(channel - (target[i] as number)) <= tolerance);
}

export const MAGIC = {
  png: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  jpg: Buffer.from([0xff, 0xd8, 0xff]),
  webp: Buffer.from('RIFF'),
};

/** How many pixels of two images differ at all (every pixel when their sizes differ). */
export async function differingPixels(a: Buffer, b: Buffer): Promise<number> {
  const [first, second] = await Promise.all([a, b].map((data) => sharp(data, { limitInputPixels: false }).removeAlpha().raw().toBuffer({ resolveWithObject: true })));
  if (!first || !second) throw new Error('two images expected');
  if (first.info.width !== second.info.width || first.info.height !== second.info.height) return Math.max(first.info.width * first.info.height, second.info.width * second.info.height);
  let differing = 0;
  for (let offset = 0; offset < first.data.length; offset += 3) {
    if (first.data[offset] !== second.data[offset] || first.data[offset + 1] !== second.data[offset + 1] || first.data[offset + 2] !== second.data[offset + 2]) differing++;
  }
  return differing;
}
