import { sleep, throwIfAborted } from '../../src/core/deadline.js';
import type { DrivenVideo } from '../shared/screencast-video.js';
import type { ScrollTimeline } from './timeline.js';
import { scrollPage, type ScrollState } from './page-scroll.js';
import type { CDPSession } from 'playwright-core';

/** How soon after it is asked Chromium draws a scroll, at the least: 10-40 ms, median 19 ms, at 640x360 on two cores. */
const DRAWN_AFTER_MS = 10;

/**
 * Scrolls the page along the timeline in real time, on the video's clock. Moment i shows the frame
 * drawn nearest to it, one drawn in the half period either side, so the position of frame i is
 * asked for half a period and DRAWN_AFTER_MS before moment i: the frame Chromium draws for it falls
 * in that window for any delay shorter than a period.
 * The page lives at its own pace meanwhile: its animations, lazy images and fetches get the time
 * they would have for a person scrolling, and the video shows them at that time. Behind the clock (a busy machine), the driver goes straight to the position of the moment
 * at hand rather than replaying the ones gone by.
 */
export async function driveScroll(timeline: ScrollTimeline, fps: number, { cdp, window, frameCount, signal }: DrivenVideo): Promise<void> {
  const leadMs = 500 / fps + DRAWN_AFTER_MS;
  await window.started(signal);
  const momentAt = (time: number): number => Math.floor(((time + leadMs - window.momentOf(0)) * fps) / 1000);
  let page = await scrollPage(cdp, null);
  let step = timeline.stepOf(0);
  for (let index = 0; index < frameCount; index = Math.max(index + 1, momentAt(Date.now()))) {
    const ahead = window.momentOf(index) - leadMs - Date.now();
    if (ahead > 0) await sleep(ahead, signal);
    throwIfAborted(signal);
    // The page may have grown since the last step (lazy content, infinite lists).
    if (timeline.stepOf(index) !== step) {
      step = timeline.stepOf(index);
      page = await scrollPage(cdp, null);
    }
    const target = timeline.positionAt(index, page.y, page.max);
    if (target !== page.y) page = await scrollPage(cdp, target);
  }
}

/**
 * The scroll of a video drawn frame by frame (issue 53): each frame's position set at its moment,
 * before it is drawn, so frame i shows exactly the timeline's position i; the page measured afresh
 * at each step, as it may have grown.
 */
export function scrollEachFrame(timeline: ScrollTimeline, cdp: CDPSession): (index: number) => Promise<void> {
  let page: ScrollState | undefined;
  let step: number | undefined;
  return async (index) => {
    if (page === undefined || timeline.stepOf(index) !== step) {
      step = timeline.stepOf(index);
      page = await scrollPage(cdp, null);
    }
    const target = timeline.positionAt(index, page.y, page.max);
    if (target !== page.y) page = await scrollPage(cdp, target);
  };
}
