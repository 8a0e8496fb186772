import type { Phase } from './phases.js';
import type { FrameStream } from './plugin-api.js';

/** Where a capture is, for a caller that shows it (`capture-engine shot` on a terminal). */
export interface CaptureProgress {
  /** `queue`: waiting for a browser; `upload`: the PUT to `upload_url`; else the phase that began. */
  phase: Phase | 'queue' | 'upload';
  /** A video's frames encoded so far, of all it will have. */
  frames?: { done: number; total: number };
}

export type ProgressListener = (progress: CaptureProgress) => void;

/** Tells the listener; what it throws is its own business, never the capture's. */
export function tellProgress(listener: ProgressListener | undefined, progress: CaptureProgress): void {
  try {
    listener?.(progress);
  } catch {
    // ignored on purpose: showing progress is best effort
  }
}

/** A video's frames, each counted to the listener once the encoder has taken it. */
export function countedFrames(stream: FrameStream, listener: ProgressListener): FrameStream {
  const total = stream.frameCount;
  async function* counted(): AsyncGenerator<Buffer> {
    let done = 0;
    for await (const frame of stream.frames) {
      yield frame;
      tellProgress(listener, { phase: 'encode', frames: { done: ++done, total } });
    }
  }
  return { ...stream, frames: counted() };
}
