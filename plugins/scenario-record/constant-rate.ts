import { FrameClock } from '../shared/frame-clock.js';
import type { FrameWindow } from './frame-window.js';
import type { ScreencastFrame } from '../shared/screencast.js';

export interface ConstantRateOptions {
  fps: number;
  /** Exactly this many frames are yielded. */
  frameCount: number;
  /**
   * How long after a tick a frame drawn before it may still arrive (screencast delivery lags behind
   * drawing, more on a busy machine). Only a page that stopped changing waits this long.
   */
  latencyMs: number;
  signal: AbortSignal;
  /** A frame for when the screencast has sent none at all yet. */
  fallback: () => Promise<Buffer>;
}

/**
 * Turns the screencast's variable-rate frames into a constant rate by their timestamps: each tick
 * shows the frame that was on screen at that moment, repeating a frame while the page is still and
 * skipping frames drawn between ticks.
 */
export async function* constantRate(window: FrameWindow, options: ConstantRateOptions): AsyncGenerator<Buffer> {
  const clock = new FrameClock(options.fps);
  let shown: ScreencastFrame | undefined;
  let data: Buffer | undefined;
  for (let index = 0; index < options.frameCount; index++) {
    const moment = clock.at(index);
    await window.settle(moment, moment + options.latencyMs, options.signal);
    const frame = window.take(moment);
    if (frame && frame !== shown) {
      shown = frame;
      data = Buffer.from(frame.base64, 'base64');
    }
    data ??= await options.fallback();
    yield data;
  }
}
