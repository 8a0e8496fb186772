import type { CDPSession } from 'playwright-core';
import { CaptureError } from '../../src/core/errors/catalogue.js';
import { abortable } from '../../src/core/deadline.js';

export interface BeginFrameVideoOptions {
  fps: number;
  frameCount: number;
  /** JPEG quality of the frames handed to the encoder. */
  quality: number;
  /** The capture's deadline: a page whose main thread hangs stops the video with it. */
  signal: AbortSignal;
}

/** Chromium's TimeTicks: CLOCK_MONOTONIC on Linux, as Node's hrtime, in ms. */
function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * The frames of a video of a page in a begin-frame browser (BEGIN_FRAME_SWITCHES), each drawn when
 * asked for it, for its own moment: frame `i` for the page time of the first plus `i / fps`, however
 * long drawing takes. The page's animation frames and CSS and Web Animations run on the frames' time;
 * its other clocks (performance.now, Date, timers) still run on the wall clock. A frame without
 * damage is the page unchanged: the frame before it again. One frame is held at a time.
 */
export async function* beginFrameFrames(cdp: CDPSession, { fps, frameCount, quality, signal }: BeginFrameVideoOptions): AsyncGenerator<Buffer> {
  const period = 1000 / fps;
  // After the frames drawn so far (the page's loading), which ran on the wall clock.
  const first = monotonicMs() + period;
  let last: Buffer | undefined;
  for (let index = 0; index < frameCount; index++) {
    const frame = cdp.send('HeadlessExperimental.beginFrame', { frameTimeTicks: first + index * period, interval: period, screenshot: { format: 'jpeg', quality } });
    const { screenshotData } = await abortable(frame, signal);
    if (screenshotData) last = Buffer.from(screenshotData, 'base64');
    if (!last) throw new CaptureError('CAPTURE_FAILED', 'Chromium drew no first frame of the video');
    yield last;
  }
}
