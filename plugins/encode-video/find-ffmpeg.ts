import { existsSync } from 'node:fs';
import { findOnPath, isExecutable } from '../shared/find-executable.js';
import { CaptureError } from '../../src/core/errors/catalogue.js';

/**
 * Finds the ffmpeg to run: the engine option, then `CAPTURE_FFMPEG_PATH`, then the binary of the
 * optional `ffmpeg-static` package when its download actually happened, then `ffmpeg` on PATH.
 */
export async function findFfmpeg(explicit?: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const chosen = explicit ?? env.CAPTURE_FFMPEG_PATH;
  if (chosen) {
    if (!(await isExecutable(chosen))) throw missing(`ffmpeg not found or not executable at ${chosen}`);
    return chosen;
  }
  const bundled = await ffmpegStaticPath();
  if (bundled) return bundled;
  const onPath = await findOnPath(process.platform === 'win32' ? 'ffmpeg.exe' : 'ffmpeg', env.PATH ?? '');
  if (onPath) return onPath;
  throw missing('No ffmpeg found: set the ffmpegPath option or CAPTURE_FFMPEG_PATH, install ffmpeg-static, or install ffmpeg (`npm run setup`)');
}

async function ffmpegStaticPath(): Promise<string | undefined> {
  // A variable specifier keeps bundlers and the type checker away from this optional package.
  const name = 'ffmpeg-static';
  try {
    const module = (await import(name)) as { default?: unknown };
    const file = module.default;
    // Its install step downloads the binary and fails offline, leaving a path to nothing.
    return typeof file === 'string' && existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

/** A server without ffmpeg is the operator's problem, not the client's: hidden behind INTERNAL_ERROR. */
function missing(message: string): CaptureError {
  return new CaptureError('INTERNAL_ERROR', message, { details: { reason: 'encoder' } });
}
