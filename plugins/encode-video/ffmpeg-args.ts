import type { VideoFormat } from '../../src/core/schema/formats.js';

/** What the encoder needs to know about the video it writes. */
export interface VideoSpec {
  format: VideoFormat;
  fps: number;
  /** Size of the incoming frames. */
  width: number;
  height: number;
  /** The capture's `quality` (1..100). */
  quality: number;
  /** Encoding of the incoming frames. */
  input: 'jpeg' | 'png';
  output: string;
}

interface Codec {
  /** H.264 in 4:2:0 needs even sides; VP9 and GIF do not. */
  evenSides: boolean;
  /** Filters after the frames are brought to their size. */
  filters: string[];
  /** Encoder arguments for the capture's 1..100 quality. */
  args(quality: number): string[];
}

/**
 * CRF at quality 100 and at quality 1; in between it is linear. VP9's realtime mode compresses less
 * than x264 at the same CRF, hence its higher scale: quality 90 gives CRF 32, about SSIM 0.99 on
 * text-heavy pages.
 */
const CRF_SCALE = { mp4: [18, 45], webm: [28, 63] } as const;

/** Maps the capture's 1..100 quality onto the codec's CRF scale (lower CRF = better). */
export function crfFor(format: keyof typeof CRF_SCALE, quality: number): number {
  const [best, worst] = CRF_SCALE[format];
  const share = (Math.min(100, Math.max(1, quality)) - 1) / 99;
  return Math.round(worst + (best - worst) * share);
}

/**
 * Fast settings measured on a 2-core machine (150 text-heavy 1280x720 frames, CPU-s to encode: x264
 * veryfast 2.3, with zerolatency 1.7, VP9 realtime 3.9, VP8 realtime 10.8). `zerolatency` drops the
 * lookahead: ffmpeg then holds no more than a frame or two, so memory stays flat at any size, the
 * frame producer feels ffmpeg's pace at once and the file is done right after the last frame, for
 * about 25% more bytes. `faststart` puts the index first so browsers play mp4 while it downloads.
 */
export const CODECS: Record<VideoFormat, Codec> = {
  mp4: {
    evenSides: true,
    filters: ['format=yuv420p'],
    args: (quality) => ['-c:v', 'libx264', '-preset', 'veryfast', '-tune', 'zerolatency', '-profile:v', 'high', '-movflags', '+faststart', '-crf', String(crfFor('mp4', quality)), '-pix_fmt', 'yuv420p'],
  },
  webm: {
    evenSides: false,
    filters: ['format=yuv420p'],
    // Constant quality in libvpx needs `-b:v 0`; realtime + cpu-used 8 is its fastest mode and holds
    // no frames back (VP8 was slower and worse here). Screen-content tuning and skipping unchanged
    // blocks made pages 25% smaller at the same SSIM (0.993) for 15% less CPU.
    args: (quality) => [
      '-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-row-mt', '1', '-tune-content', 'screen', '-static-thresh', '1000', '-b:v', '0',
      '-crf', String(crfFor('webm', quality)), '-pix_fmt', 'yuv420p',
    ],
  },
  gif: {
    evenSides: false,
    // A palette per frame (`stats_mode=single`, `new=1`), made from that frame alone: ffmpeg then
    // holds one frame, not the whole video a global palette would need first, so memory stays flat.
    // Only the part that changed is redrawn (`diff_mode=rectangle`), which keeps scrolls small.
    filters: ['split[a][b];[a]palettegen=stats_mode=single[p];[b][p]paletteuse=new=1:dither=bayer:bayer_scale=4:diff_mode=rectangle'],
    args: () => ['-loop', '0', '-f', 'gif'],
  },
};

/** Output size: the frame size, cut by one pixel where the codec needs even sides. */
export function outputSize(format: VideoFormat, width: number, height: number): { width: number; height: number } {
  if (!CODECS[format].evenSides) return { width, height };
  return { width: width - (width % 2), height: height - (height % 2) };
}

/** ffmpeg arguments: frames from stdin as an image pipe, one constant-rate video file out. */
export function ffmpegArgs(spec: VideoSpec): string[] {
  const codec = CODECS[spec.format];
  const size = outputSize(spec.format, spec.width, spec.height);
  // Scaling to the expected size guards against a stray frame of another size, which would
  // otherwise make the encoder fail mid-stream; cropping (not scaling) keeps odd sizes sharp.
  const filters = [`scale=${spec.width}:${spec.height}`];
  if (size.width !== spec.width || size.height !== spec.height) filters.push(`crop=${size.width}:${size.height}:0:0`);
  filters.push(...codec.filters);
  return [
    '-hide_banner',
    '-loglevel', 'error',
    // Without these ffmpeg reads up to 5 MB of frames to probe the stream before encoding any:
    // hidden buffering that defeats backpressure (a whole short recording fit in it).
    '-probesize', '32',
    '-analyzeduration', '0',
    '-f', 'image2pipe',
    '-c:v', spec.input === 'jpeg' ? 'mjpeg' : 'png',
    '-framerate', String(spec.fps),
    '-i', 'pipe:0',
    '-an',
    '-vf', filters.join(','),
    ...codec.args(spec.quality),
    '-r', String(spec.fps),
    '-y', spec.output,
  ];
}
