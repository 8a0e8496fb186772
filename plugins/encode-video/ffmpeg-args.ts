import type { VideoFormat } from '../../src/core/formats.js';

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
  /** H.264 in 4:2:0 needs even sides; VP9 does not. */
  evenSides: boolean;
  /** CRF at quality 100 and at quality 1; in between it is linear. */
  crf: [best: number, worst: number];
  args: string[];
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
    crf: [18, 45],
    args: ['-c:v', 'libx264', '-preset', 'veryfast', '-tune', 'zerolatency', '-profile:v', 'high', '-movflags', '+faststart'],
  },
  webm: {
    evenSides: false,
    // Realtime mode compresses less than x264 at the same CRF, hence the higher scale: quality 90
    // gives CRF 32, about SSIM 0.99 on text-heavy pages.
    crf: [28, 63],
    // Constant quality in libvpx needs `-b:v 0`; realtime + cpu-used 8 is its fastest mode and holds
    // no frames back (VP8 was slower and worse here). Screen-content tuning and skipping unchanged
    // blocks made pages 25% smaller at the same SSIM (0.993) for 15% less CPU.
    args: ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-row-mt', '1', '-tune-content', 'screen', '-static-thresh', '1000', '-b:v', '0'],
  },
};

/** Maps the capture's 1..100 quality onto the codec's CRF scale (lower CRF = better). */
export function crfFor(format: VideoFormat, quality: number): number {
  const [best, worst] = CODECS[format].crf;
  const share = (Math.min(100, Math.max(1, quality)) - 1) / 99;
  return Math.round(worst + (best - worst) * share);
}

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
  filters.push('format=yuv420p');
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
    ...codec.args,
    '-crf', String(crfFor(spec.format, spec.quality)),
    '-pix_fmt', 'yuv420p',
    '-r', String(spec.fps),
    '-y', spec.output,
  ];
}
