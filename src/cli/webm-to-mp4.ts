import { execa } from 'execa';
import { findFfmpeg } from '../create-capture-engine.js';

/** Longest the copy may take: a storyboard's video is minutes long at most. */
const CONVERT_MS = 10 * 60_000;

/**
 * `video --mp4`, as shot-scraper does it: the WebM is written first, then an MP4 copy beside it,
 * named with `.mp4` for its extension. Without an ffmpeg the WebM stays and the command fails
 * saying the MP4 was not made.
 */
export async function webmToMp4(webm: string): Promise<string> {
  const mp4 = webm.replace(/\.[^./]*$/, '') + '.mp4';
  let ffmpeg: string;
  try {
    ffmpeg = await findFfmpeg();
  } catch (error) {
    throw new Error(`The MP4 was not created: ${(error as Error).message}. The WebM is in '${webm}'`, { cause: error });
  }
  const run = await execa(ffmpeg, ['-y', '-loglevel', 'error', '-i', webm, '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-movflags', '+faststart', '-an', mp4], { reject: false, timeout: CONVERT_MS, stdin: 'ignore' });
  if (run.exitCode !== 0) throw new Error(`The MP4 was not created: ffmpeg ${run.timedOut ? 'took too long' : `exited with ${run.exitCode}`}: ${String(run.stderr).slice(-500)}`);
  return mp4;
}
