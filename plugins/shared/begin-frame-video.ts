import type { CDPSession } from 'playwright-core';
import { CaptureError } from '../../src/core/errors/catalogue.js';
import { abortable } from '../../src/core/deadline.js';
import type { CaptureContext, FrameStream } from '../../src/core/plugin-api.js';
import type { BeginFrameLoading } from '../../src/core/ports.js';

/**
 * A video of the page in the video browser for `duration` seconds, drawn frame by frame once the
 * page, loaded and settled on the wall clock, is handed over (see `beginFrameFrames`).
 */
export async function frameByFrameVideo(ctx: CaptureContext, loading: BeginFrameLoading, { fps, quality, beforeFrame }: Pick<BeginFrameVideoOptions, 'fps' | 'quality' | 'beforeFrame'>): Promise<FrameStream> {
  const { viewport_width: width, viewport_height: height, duration } = ctx.params;
  await loading.stop(ctx.signal);
  const frameCount = Math.round(duration * fps);
  return { kind: 'frames', fps, width, height, frameCount, encoding: 'jpeg', frames: beginFrameFrames(ctx.cdp, { fps, frameCount, quality, signal: ctx.signal, beforeFrame }) };
}

export interface BeginFrameVideoOptions {
  fps: number;
  frameCount: number;
  /** JPEG quality of the frames handed to the encoder. */
  quality: number;
  /** The capture's deadline: a page whose main thread hangs stops the video with it. */
  signal: AbortSignal;
  /** What to do to the page at frame `index`'s moment, before it is drawn (a scroll). */
  beforeFrame?: (index: number) => Promise<void>;
}

/**
 * The frames of a video of a page in a begin-frame browser (BEGIN_FRAME_SWITCHES), each drawn when
 * asked for it, for its own moment: frame `i` shows the page at the time of the first plus `i / fps`,
 * however long drawing takes. The page's clocks run on the video's: Chromium's virtual time, paused
 * between frames and advanced one frame period before each, drives performance.now, Date and timers,
 * and the frame's time (the same ticks) animation frames and CSS and Web Animations. The network
 * runs on the wall clock; virtual time does not wait for it (`advance`: a page polling for ever must
 * not stall the video). A frame without damage is the page unchanged: the frame before it again.
 * One frame is held at a time.
 */
export async function* beginFrameFrames(cdp: CDPSession, { fps, frameCount, quality, signal, beforeFrame }: BeginFrameVideoOptions): AsyncGenerator<Buffer> {
  const { virtualTimeTicksBase: base } = await abortable(cdp.send('Emulation.setVirtualTimePolicy', { policy: 'pause' }), signal);
  // In whole µs, Chromium's unit, so that the budgets add up to i / fps exactly.
  const moment = (index: number): number => Math.round((index * 1e6) / fps) / 1000;
  let last: Buffer | undefined;
  for (let index = 1; index <= frameCount; index++) {
    // A page whose main thread hangs never spends the budget: the capture's deadline ends the wait.
    await abortable(advanceVirtualTime(cdp, moment(index) - moment(index - 1)), signal);
    if (beforeFrame) await abortable(beforeFrame(index - 1), signal);
    const frame = cdp.send('HeadlessExperimental.beginFrame', { frameTimeTicks: base + moment(index), interval: 1000 / fps, screenshot: { format: 'jpeg', quality } });
    const { screenshotData } = await abortable(frame, signal);
    if (screenshotData) last = Buffer.from(screenshotData, 'base64');
    if (!last) throw new CaptureError('CAPTURE_FAILED', 'Chromium drew no first frame of the video');
    yield last;
  }
}

/** Lets the page run `budget` ms of virtual time, its timers and tasks included, then pauses it again. */
async function advanceVirtualTime(cdp: CDPSession, budget: number): Promise<void> {
  const expired = new Promise((resolve) => cdp.once('Emulation.virtualTimeBudgetExpired', resolve));
  await cdp.send('Emulation.setVirtualTimePolicy', { policy: 'advance', budget });
  await expired;
}
