import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { CaptureContext, CapturePlugin } from '../../src/core/plugin-api.js';
import { CaptureError } from '../../src/core/errors/catalogue.js';
import { throwIfAborted } from '../../src/core/deadline.js';
import { findFfmpeg } from './find-ffmpeg.js';
import { isVideoFormat } from '../../src/core/schema/formats.js';
import { ffmpegArgs, outputSize } from './ffmpeg-args.js';

export { findFfmpeg } from './find-ffmpeg.js';

export interface EncodeVideoOptions {
  /** ffmpeg executable. @default `CAPTURE_FFMPEG_PATH` → `ffmpeg-static` → `ffmpeg` on PATH */
  ffmpegPath?: string;
  /** Where videos are written while they are encoded. @default engine option `tempDir` */
  tempDir?: string;
}

/**
 * Encodes the captured frames into mp4 (H.264) or webm (VP9) by streaming them through ffmpeg's
 * stdin into a temporary file, which the engine owns once `ctx.output` points at it.
 */
export function encodeVideo(options: EncodeVideoOptions = {}): CapturePlugin {
  let tempDir = options.tempDir;
  const ffmpegPath = options.ffmpegPath;
  let binary: Promise<string> | undefined;
  // Looked up on first use, so an engine without ffmpeg still serves images.
  const findBinary = (): Promise<string> => {
    binary ??= findFfmpeg(ffmpegPath).catch((error: unknown) => {
      binary = undefined;
      throw error;
    });
    return binary;
  };

  return {
    name: 'encode-video',
    setup(host) {
      tempDir ??= host.options.tempDir;
    },
    stages: [
      {
        name: 'encode',
        phase: 'encode',
        leavesContextState: false,
        when: (params) => isVideoFormat(params.format),
        run: async (ctx) => encode(ctx, await findBinary(), tempDir),
      },
    ],
  };
}

async function encode(ctx: CaptureContext, binary: string, tempDir: string | undefined): Promise<void> {
  const captured = ctx.captured;
  if (captured?.kind !== 'frames') throw new CaptureError('INTERNAL_ERROR', 'No video frames were captured');
  if (!tempDir) throw new CaptureError('INTERNAL_ERROR', 'encode-video has no temporary directory');
  const format = ctx.params.format;
  if (!isVideoFormat(format)) throw new CaptureError('INTERNAL_ERROR', `No video encoder for ${format}`);

  const file = path.join(tempDir, `${ctx.id}.${format}`);
  const args = ffmpegArgs({ format, fps: captured.fps, width: captured.width, height: captured.height, quality: ctx.params.quality, input: captured.encoding, output: file });
  // execa is loaded by the first video only: stills never need it.
  const { startFfmpeg } = await import('./ffmpeg-process.js');
  const ffmpeg = startFfmpeg(binary, args, file, ctx.signal);
  // Runs on success too: then the file belongs to the engine and stays.
  ctx.defer(async () => {
    await ffmpeg.kill();
    if (ctx.output?.path !== file) await rm(file, { force: true });
  });

  await ffmpeg.encode(captured.frames);
  const { size } = await stat(file);
  throwIfAborted(ctx.signal);
  ctx.output = {
    format,
    size,
    path: file,
    ...outputSize(format, captured.width, captured.height),
  };
}
