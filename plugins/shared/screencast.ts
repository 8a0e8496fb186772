import type { CDPSession } from 'playwright-core';
import type { CaptureContext } from '../../src/core/plugin-api.js';

/** One frame of Chromium's screencast, still base64 so frames that get dropped are never decoded. */
export interface ScreencastFrame {
  base64: string;
  /** Wall-clock time the frame was drawn, in ms since the epoch (comparable with `Date.now()`). */
  timestamp: number;
  /** When it arrived here: long after it was drawn for the first frame of a page at rest. */
  receivedAt: number;
  /** Vertical scroll position the frame shows, in CSS px. */
  scrollY: number;
}

export interface ScreencastOptions {
  width: number;
  height: number;
  /** JPEG quality of the frames (intermediate: the video encoder compresses again). */
  quality: number;
}

export interface Screencast {
  /** Stops the frames; idempotent and safe after the page has gone. */
  stop(): Promise<void>;
}

/**
 * Starts Chromium's screencast. Chromium sends a frame whenever the page changes and stops after
 * a few unacknowledged ones, so `onFrame` decides when to call `ack`: that is how a slow consumer
 * holds Chromium back instead of piling frames up in memory.
 */
export async function startScreencast(
  cdp: CDPSession,
  options: ScreencastOptions,
  onFrame: (frame: ScreencastFrame, ack: () => void) => void,
): Promise<Screencast> {
  let stopped = false;
  const listener = ({ data, metadata, sessionId }: { data: string; metadata: { timestamp?: number; scrollOffsetY: number }; sessionId: number }): void => {
    if (stopped) return;
    let acked = false;
    const ack = (): void => {
      if (acked || stopped) return;
      acked = true;
      cdp.send('Page.screencastFrameAck', { sessionId }).catch(() => undefined);
    };
    const timestamp = metadata.timestamp === undefined ? Date.now() : metadata.timestamp * 1000;
    onFrame({ base64: data, timestamp, receivedAt: Date.now(), scrollY: metadata.scrollOffsetY }, ack);
  };
  cdp.on('Page.screencastFrame', listener);
  await cdp.send('Page.startScreencast', {
    format: 'jpeg',
    quality: options.quality,
    maxWidth: options.width,
    maxHeight: options.height,
    everyNthFrame: 1,
  });
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      cdp.off('Page.screencastFrame', listener);
      await cdp.send('Page.stopScreencast').catch(() => undefined);
    },
  };
}

/** A still of the viewport, for when the screencast has nothing to show yet. */
export async function captureViewport(cdp: CDPSession, quality: number): Promise<Buffer> {
  const { data } = await cdp.send('Page.captureScreenshot', { format: 'jpeg', quality, optimizeForSpeed: true });
  return Buffer.from(data, 'base64');
}

/**
 * Opens a CDP session on the capture's page and starts the screencast on it. Both end with the
 * capture (stopped first, then detached), whatever happens.
 */
export async function screencastFor(
  ctx: CaptureContext,
  quality: number,
  onFrame: (frame: ScreencastFrame, ack: () => void) => void,
): Promise<{ cdp: CDPSession; screencast: Screencast }> {
  const cdp = await ctx.page.context().newCDPSession(ctx.page);
  ctx.defer(() => cdp.detach().catch(() => undefined));
  const screencast = await startScreencast(cdp, { width: ctx.params.viewport_width, height: ctx.params.viewport_height, quality }, onFrame);
  ctx.defer(() => screencast.stop());
  return { cdp, screencast };
}
