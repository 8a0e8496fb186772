import type { CDPSession } from 'playwright-core';
import { sleep, throwIfAborted } from '../../src/core/deadline.js';
import { captureViewport, type ScreencastFrame } from '../shared/screencast.js';
import { FrameClock } from '../shared/frame-clock.js';
import type { LatestFrame } from './latest-frame.js';
import type { ScrollTimeline } from './timeline.js';
import { scrollPage } from './page-scroll.js';

export interface ScrollFramesOptions {
  cdp: CDPSession;
  latest: LatestFrame;
  timeline: ScrollTimeline;
  frameCount: number;
  fps: number;
  /** JPEG quality of screenshots taken when the screencast fails to deliver. */
  quality: number;
  /** How long to wait for the screencast to show a new scroll position before taking a screenshot. */
  frameTimeoutMs: number;
  signal: AbortSignal;
  /** Told once when the screencast stopped delivering and screenshots took over. */
  onFallback(): void;
}

/**
 * Renders the scroll video frame by frame: set the scroll position the timeline gives for frame i,
 * take the screencast frame that shows it, yield. Positions depend only on i, so a slow machine
 * makes a slower capture, never a different video. Frames are never rendered ahead of real time
 * either: lazy images, fetches and animations get the time they would have for a person scrolling.
 * A frame where the page does not move costs nothing: the newest screencast frame (with whatever
 * content arrived meanwhile) is reused.
 */
export async function* scrollFrames(options: ScrollFramesOptions): AsyncGenerator<Buffer> {
  const { cdp, latest, timeline, signal } = options;
  let page = await scrollPage(cdp, null);
  let screencast = true;
  let shown: ScreencastFrame | undefined;
  let data: Buffer | undefined;

  const clock = new FrameClock(options.fps);
  for (let index = 0; index < options.frameCount; index++) {
    throwIfAborted(signal);
    const ahead = clock.at(index) - Date.now();
    if (ahead > 0) await sleep(ahead, signal);
    // The page may have grown since the last step (lazy content, infinite lists).
    if (index > 0 && timeline.startsStep(index)) page = await scrollPage(cdp, null);
    const target = timeline.positionAt(index, page.y, page.max);
    const before = page.y;
    if (target !== page.y) page = await scrollPage(cdp, target);
    const moved = page.y !== before;

    let frame: ScreencastFrame | undefined;
    if (screencast) {
      const y = page.y;
      frame = await latest.take(moved ? (candidate) => Math.abs(candidate.scrollY - y) < 1 : () => true, options.frameTimeoutMs, signal);
      if (!frame) {
        screencast = false;
        options.onFallback();
      }
    }
    if (frame) {
      if (frame !== shown) data = Buffer.from(frame.base64, 'base64');
      shown = frame;
    } else {
      data = await captureViewport(cdp, options.quality);
    }
    yield data as Buffer;
  }
}
