import type { FrameWindow } from './frame-window.js';
import type { ScreencastFrame } from './screencast.js';

export interface ConstantRateOptions {
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
 * Turns the screencast's variable-rate frames into a constant rate by their timestamps: frame `i`
 * shows what was on screen at the window's moment `i`, however late the encoder asks for it,
 * repeating a frame while the page is still and skipping frames drawn between moments.
 */
export async function* constantRate(window: FrameWindow, options: ConstantRateOptions): AsyncGenerator<Buffer> {
  let shown: ScreencastFrame | undefined;
  let data: Buffer | undefined;
  for (let index = 0; index < options.frameCount; index++) {
    await window.settle(index, options.latencyMs, options.signal);
    const frame = window.take(index);
    if (frame && frame !== shown) {
      shown = frame;
      data = Buffer.from(frame.base64, 'base64');
    }
    data ??= await options.fallback();
    yield data;
  }
}
