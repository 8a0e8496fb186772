import { Wakeup } from '../shared/wait-for-notify.js';
import type { ScreencastFrame } from '../shared/screencast.js';

interface Held {
  frame: ScreencastFrame;
  ack: () => void;
}

/**
 * Holds only the newest screencast frame. A frame is acknowledged when it is taken (or replaced),
 * so Chromium draws at most as many frames as the video uses, even on a page that animates.
 */
export class LatestFrame {
  private held: Held | undefined;
  private readonly arrived = new Wakeup();

  push(frame: ScreencastFrame, ack: () => void): void {
    this.held?.ack();
    this.held = { frame, ack };
    this.arrived.notify();
  }

  /** The newest frame that `accept`s, waiting for one up to `timeoutMs`; undefined if none came. */
  async take(accept: (frame: ScreencastFrame) => boolean, timeoutMs: number, signal: AbortSignal): Promise<ScreencastFrame | undefined> {
    const until = Date.now() + timeoutMs;
    while (!this.held || !accept(this.held.frame)) {
      const left = until - Date.now();
      if (left <= 0) return undefined;
      await this.arrived.wait(left, signal);
    }
    this.held.ack();
    return this.held.frame;
  }
}
