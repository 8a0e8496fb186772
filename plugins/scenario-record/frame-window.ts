import { Wakeup } from '../shared/wait-for-notify.js';
import type { ScreencastFrame } from '../shared/screencast.js';

interface Entry {
  frame: ScreencastFrame;
  ack: () => void;
  acked: boolean;
}

/**
 * The few latest screencast frames, in the order they were drawn: enough to tell which frame was on
 * screen at any moment the encoder still needs, and never more than `capacity` acknowledged ones.
 * Past that, new frames stay unacknowledged, which makes Chromium wait: memory stays flat however
 * long the recording and however far the encoder falls behind.
 */
export class FrameWindow {
  private readonly entries: Entry[] = [];
  /** The last moment taken: frames superseded before it can never be chosen again. */
  private horizon = Number.NEGATIVE_INFINITY;
  private readonly arrived = new Wakeup();

  constructor(private readonly capacity = 6) {}

  get size(): number {
    return this.entries.length;
  }

  push(frame: ScreencastFrame, ack: () => void): void {
    this.entries.push({ frame, ack, acked: false });
    this.prune();
    this.release();
    this.arrived.notify();
  }

  /**
   * Resolves once the frame on screen at `moment` is known for sure (a later frame has arrived) or,
   * for a page that stopped changing, at wall-clock time `until`.
   */
  async settle(moment: number, until: number, signal: AbortSignal): Promise<void> {
    // Frames replaced before `moment` will never be shown: letting them go now lets a Chromium
    // that waits for acknowledgements draw the frame this moment needs.
    this.advance(moment);
    while ((this.entries.at(-1)?.frame.timestamp ?? Number.NEGATIVE_INFINITY) <= moment) {
      const left = until - Date.now();
      if (left <= 0) return;
      await this.arrived.wait(left, signal);
    }
  }

  /** The frame on screen at `moment`: the last drawn at or before it, else the earliest there is. */
  take(moment: number): ScreencastFrame | undefined {
    // Pruning at the horizon leaves the last frame drawn by then first (or only later ones).
    this.advance(moment);
    return this.entries[0]?.frame;
  }

  private advance(moment: number): void {
    this.horizon = Math.max(this.horizon, moment);
    this.prune();
    this.release();
  }

  /** Drops frames a later one replaces at the horizon already; acknowledging them lets Chromium go on. */
  private prune(): void {
    while (this.entries.length > 1 && (this.entries[1] as Entry).frame.timestamp <= this.horizon) {
      acknowledge(this.entries.shift() as Entry);
    }
  }

  /** Acknowledges the oldest frames up to the capacity; the newest beyond it wait for room. */
  private release(): void {
    const count = Math.min(this.entries.length, this.capacity);
    for (let index = 0; index < count; index++) acknowledge(this.entries[index] as Entry);
  }
}

function acknowledge(entry: Entry): void {
  if (entry.acked) return;
  entry.acked = true;
  entry.ack();
}
