import type { CDPSession } from 'playwright-core';
import { CaptureError } from '../../src/core/errors/catalogue.js';
import { abortable } from '../../src/core/deadline.js';
import type { CaptureContext, FrameStream } from '../../src/core/plugin-api.js';
import type { BeginFrameLoading } from '../../src/core/ports.js';
import { VirtualClock } from './virtual-clock.js';
import { PageVideos } from './page-videos.js';

/**
 * A video of the page in the video browser for `duration` seconds, drawn frame by frame once the
 * page, loaded and settled on the wall clock, is handed over (see `beginFrameFrames`).
 */
export async function frameByFrameVideo(ctx: CaptureContext, loading: BeginFrameLoading, options: Pick<BeginFrameVideoOptions, 'fps' | 'quality' | 'beforeFrame'>): Promise<FrameStream> {
  const { viewport_width: width, viewport_height: height, duration } = ctx.params;
  const { fps } = options;
  await loading.stop(ctx.signal);
  const frameCount = Math.round(duration * fps);
  // The page's fetches may hold its clock for a quarter of the capture's time left, in all; its videos' seeks may take another.
  const fetchWaitMs = ctx.remaining() / 4;
  const videoSeekMs = ctx.remaining() / 4;
  // A <video> left to play as it does is named once, as the other outputs that fall short are.
  const onVideoLeft = (): void => void (ctx.incomplete.includes('video_clock') || ctx.incomplete.push('video_clock'));
  return { kind: 'frames', fps, width, height, frameCount, encoding: 'jpeg', frames: beginFrameFrames(ctx.cdp, { ...options, frameCount, signal: ctx.signal, fetchWaitMs, videoSeekMs, onVideoLeft }) };
}

export interface BeginFrameVideoOptions {
  fps: number;
  frameCount: number;
  /** JPEG quality of the frames handed to the encoder. */
  quality: number;
  /** The capture's deadline: a page whose main thread hangs stops the video with it. */
  signal: AbortSignal;
  /**
   * What to do to the page at frame `index`'s moment, before it is drawn (a scroll, a journey's
   * steps). While it runs, the page's clocks stand still and it is drawn at the moment of the frame
   * before, so that what waits for a drawn frame (a pointer move, an element's stability) goes on.
   */
  beforeFrame?: (index: number) => Promise<void>;
  /**
   * Wall time the page's clock may stand still, in all, while it waits for the page's pending
   * fetches (data loaded mid-video shows at the moment it arrives on the video's clock, not half
   * loaded). Past it, the clock advances whatever the network does (a request that never ends).
   * @default 0
   */
  fetchWaitMs?: number;
  /**
   * Wall time the seeks of the page's `<video>` elements may take, in all (`PageVideos`).
   * @default Infinity
   */
  videoSeekMs?: number;
  /** Called when a `<video>` of the page is left to play as it does, unseeked (`PageVideos`). */
  onVideoLeft?: () => void;
}

/**
 * The frames of a video of a page in a begin-frame browser (BEGIN_FRAME_SWITCHES), each drawn when
 * asked for it, for its own moment: frame `i` shows the page at the time of the first plus `i / fps`,
 * however long drawing takes. The page's clocks run on the video's: Chromium's virtual time, paused
 * between frames and advanced one frame period before each, drives performance.now, Date and timers,
 * and the frame's time (the same ticks) animation frames and CSS and Web Animations; playing `<video>`
 * elements are seeked to their moment before each frame (`PageVideos`). The network
 * runs on the wall clock; virtual time does not wait for it (`advance`: a page polling for ever must
 * not stall the video). A frame without damage is the page unchanged: the frame before it again.
 * One frame is held at a time.
 */
export async function* beginFrameFrames(cdp: CDPSession, { fps, frameCount, quality, signal, beforeFrame, fetchWaitMs = 0, videoSeekMs = Infinity, onVideoLeft }: BeginFrameVideoOptions): AsyncGenerator<Buffer> {
  const { virtualTimeTicksBase: base } = await abortable(cdp.send('Emulation.setVirtualTimePolicy', { policy: 'pause' }), signal);
  // In whole µs, Chromium's unit, so that the budgets add up to i / fps exactly.
  const moment = (index: number): number => Math.round((index * 1e6) / fps) / 1000;
  const clock = new VirtualClock(cdp, fetchWaitMs);
  const videos = new PageVideos(cdp, clock, videoSeekMs);
  await abortable(videos.watch(), signal);
  let last: Buffer | undefined;
  for (let index = 1; index <= frameCount; index++) {
    // A page whose main thread hangs never spends the budget: the capture's deadline ends the wait.
    await abortable(clock.advanceTo(moment(index)), signal);
    if (beforeFrame) await abortable(drawnMeanwhile(cdp, base + moment(index - 1), moment(index) - moment(index - 1), beforeFrame(index - 1)), signal);
    if (!(await abortable(videos.seek(), signal))) onVideoLeft?.();
    const drawn = await abortable(drawFrame(cdp, base + moment(index), 1000 / fps, quality, last === undefined), signal);
    last = drawn ?? last;
    if (!last) throw new CaptureError('CAPTURE_FAILED', 'Chromium drew no first frame of the video');
    yield last;
  }
}

/** Times a first frame Chromium returned no picture of is drawn again. */
const FIRST_FRAME_TRIES = 5;

/**
 * The picture of the frame at `frameTime`, or none when the page is unchanged since the frame
 * before. A first frame must have one: Chromium now and then returned none for it on a page whose
 * `<video>` elements were loading (no damage, 3 of 6 videos); drawn again a µs later, it had one.
 */
async function drawFrame(cdp: CDPSession, frameTime: number, interval: number, quality: number, first: boolean): Promise<Buffer | undefined> {
  for (let attempt = 0; attempt < (first ? FIRST_FRAME_TRIES : 1); attempt++) {
    const { screenshotData } = await cdp.send('HeadlessExperimental.beginFrame', { frameTimeTicks: frameTime + attempt / 1000, interval, screenshot: { format: 'jpeg', quality } });
    if (screenshotData) return Buffer.from(screenshotData, 'base64');
  }
  return undefined;
}

/** Frames drawn while a step runs between two frames, at most this often (as a screen's). */
const STILL_FRAME_MS = 16;

/**
 * Draws the page without a screenshot every STILL_FRAME_MS until `work` ends, each frame 1 ms after
 * the one before from `from`, then (a long step) a µs, never reaching the next frame's moment,
 * `period` later: the page's clocks stand still and the video's frames keep their moments, but a
 * step that waits for a frame is drawn one. Frames a µs apart from the start now and then never
 * completed when the step asked for a frame from outside one (a pointer move, which Chromium
 * dispatches with the next frame; Playwright's stability check): the capture ran to its deadline
 * (measured: click, hover, press, select, 1 in 3 to 6 videos). A ms apart, none did (issue 53).
 */
async function drawnMeanwhile(cdp: CDPSession, from: number, period: number, work: Promise<void>): Promise<void> {
  let working = true;
  // A page that has gone takes no frames: the step learns it itself.
  const drawing = (async () => {
    for (let tick = 1; working; tick++) {
      await new Promise((resolve) => setTimeout(resolve, STILL_FRAME_MS));
      if (working) await cdp.send('HeadlessExperimental.beginFrame', { frameTimeTicks: from + stillFrameOffset(tick, period), interval: period });
    }
  })().catch(() => undefined);
  try {
    await work;
  } finally {
    working = false;
    await drawing;
  }
}

/** How far after the frame before the `tick`th frame drawn meanwhile stands (ms): whole ms, then µs, always short of `period`. */
function stillFrameOffset(tick: number, period: number): number {
  const wholeMs = Math.max(0, Math.ceil(period) - 1);
  return Math.min(tick <= wholeMs ? tick : wholeMs + (tick - wholeMs) / 1000, period - 0.001);
}
