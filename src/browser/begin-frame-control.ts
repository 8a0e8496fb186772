import type { CDPSession } from 'playwright-core';
import { abortable } from '../core/deadline.js';

/**
 * The switches of a headless shell whose pages draw only when sent `HeadlessExperimental.beginFrame`
 * (issue 53), each frame complete: every compositor stage runs before it is drawn, and animations and
 * scrolling run on the main thread, on the frame's time. The set puppeteer-capture requires
 * (PuppeteerCaptureViaHeadlessExperimental.REQUIRED_ARGS). The switch holds for every page of the
 * browser, which then does not even finish loading unless it is sent frames: only videos may use it.
 */
export const BEGIN_FRAME_SWITCHES: readonly string[] = [
  '--deterministic-mode',
  '--enable-begin-frame-control',
  '--disable-new-content-rendering-timeout',
  '--run-all-compositor-stages-before-draw',
  '--disable-threaded-animation',
  '--disable-threaded-scrolling',
  '--disable-checker-imaging',
  '--disable-image-animation-resync',
  '--enable-surface-synchronization',
];

/** Frames sent to a page of a begin-frame browser while it loads: about as often as a screen's. */
const PUMP_INTERVAL_MS = 16;

export interface BeginFramePump {
  /**
   * Stops sending frames; resolves once the last one sent has been drawn, or rejects when `signal`
   * aborts first (a page whose main thread hangs never draws it).
   */
  stop(signal: AbortSignal): Promise<void>;
}

/**
 * Draws a page of a begin-frame browser on the wall clock until stopped, so that it loads, runs its
 * timers and settles as a page of an ordinary browser does, up to the moment a video takes over.
 */
export function pumpBeginFrames(cdp: CDPSession): BeginFramePump {
  let running = true;
  const pumping = (async () => {
    while (running) {
      // A page that has gone (closed, crashed) takes no frames: the capture learns it elsewhere.
      const drawn = await cdp.send('HeadlessExperimental.beginFrame', { interval: PUMP_INTERVAL_MS }).then(() => true, () => false);
      if (!drawn) return;
      await new Promise((resolve) => setTimeout(resolve, PUMP_INTERVAL_MS));
    }
  })();
  return {
    async stop(signal) {
      running = false;
      await abortable(pumping, signal);
    },
  };
}
