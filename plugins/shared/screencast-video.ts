import type { CaptureContext, FrameStream } from '../../src/core/plugin-api.js';
import { constantRate } from './constant-rate.js';
import { FrameWindow } from './frame-window.js';
import { captureViewport, screencastFor } from './screencast.js';
import type { CDPSession } from 'playwright-core';

/** What a driver of the page gets: the page's CDP session, the video's frames and clock. */
export interface DrivenVideo {
  cdp: CDPSession;
  window: FrameWindow;
  frameCount: number;
  signal: AbortSignal;
}

export interface ScreencastVideoOptions {
  fps: number;
  /** JPEG quality of the frames handed to the encoder. */
  quality: number;
  /** How late a frame may arrive after the moment it was drawn. */
  latencyMs: number;
  /**
   * What to do to the page while it is recorded (a scroll), in real time on the video's clock
   * (`window.momentOf`); the video fails with its error. Stopped through `signal` once the video is done.
   */
  drive?: (video: DrivenVideo) => Promise<void>;
}

/**
 * A video of the live page for `duration` seconds: Chromium's screencast resampled by the frames'
 * own timestamps to exactly duration × fps frames, the frame of each moment the one on screen then.
 */
export async function screencastVideo(ctx: CaptureContext, options: ScreencastVideoOptions): Promise<FrameStream> {
  const { fps, quality, latencyMs } = options;
  const { viewport_width: width, viewport_height: height, duration } = ctx.params;
  // Frames drawn while the encoder starts up are kept for it.
  const window = new FrameWindow(fps);
  const { cdp, screencast } = await screencastFor(ctx, quality, (frame, ack) => window.push(frame, ack));
  const frameCount = Math.round(duration * fps);
  const stop = new AbortController();
  ctx.defer(() => stop.abort());
  let failure: unknown;
  const driving = options.drive?.({ cdp, window, frameCount, signal: AbortSignal.any([ctx.signal, stop.signal]) }).catch((error: unknown) => {
    if (!stop.signal.aborted) failure = error;
  });
  async function* frames(): AsyncGenerator<Buffer> {
    try {
      for await (const frame of constantRate(window, { frameCount, latencyMs, signal: ctx.signal, fallback: () => captureViewport(cdp, quality) })) {
        if (failure) throw failure;
        yield frame;
      }
    } finally {
      stop.abort();
      await driving;
      await screencast.stop();
    }
  }
  return { kind: 'frames', fps, width, height, frameCount, encoding: 'jpeg', frames: frames() };
}
