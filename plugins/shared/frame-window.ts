import { Wakeup } from './wait-for-notify.js';
import type { ScreencastFrame } from './screencast.js';

/**
 * How long after the screencast's first frame arrived the video starts. Chromium sends its first
 * frames in bursts with gaps of 100-200 ms while the stream starts; measured on a page drawing its
 * own clock, a video starting at the first frame showed jumps of up to 180 ms there, one starting
 * 300 ms later none over 17 ms (640x360, two cores). Counted from the frame's arrival, not its
 * drawing: on a page at rest that may be long before, and the video's start would be gone by.
 */
const LEAD_IN_MS = 300;

/** How long to wait for the screencast's first frame: Chromium may take half a second at 1280x720 on a busy machine. */
const FIRST_FRAME_MS = 2_000;

interface Entry {
  frame: ScreencastFrame;
  ack: () => void;
  acked: boolean;
}

/**
 * The screencast frames a video sampled at `fps` still needs: for each moment `start + k / fps` not
 * yet taken, the frame drawn nearest to it (not the last one drawn before it: where Chromium sends
 * frames with gaps, at 1280x720 on a busy machine, that would show every moment up to a whole gap
 * late instead of half of one either way). The video starts a lead-in after the first frame
 * arrived: Chromium may take half a second to send one, and moments before it would all show it.
 * Frames are kept in the order they were drawn (Chromium delivers about 1 in 200 after a later
 * one) and a frame no moment to come can show is let go at once, so what is kept is at most one
 * frame per moment the encoder is behind: it may start late (ffmpeg starting up) or fall behind,
 * and still find the frame of every moment. Past `capacity` frames, new ones stay unacknowledged,
 * which makes Chromium wait: memory stays bounded however far the encoder falls behind.
 */
export class FrameWindow {
  private readonly entries: Entry[] = [];
  /** The next moment to take: frames only earlier moments could show are gone. */
  private next = 0;
  /** When the last frame taken was drawn: an older frame arriving late would step back in time. */
  private shownAt = Number.NEGATIVE_INFINITY;
  private readonly arrived = new Wakeup();

  /** When moment 0 is: a lead-in after the first frame arrived (see `started`), until then undefined. */
  private start: number | undefined;
  /** How long the first frame is waited for, from the first moment asked for. */
  private firstFrameBy: number | undefined;

  private readonly capacity: number;
  private readonly leadInMs: number;

  /** `capacity`: frames acknowledged at most (90); `leadInMs`: from the first frame to the video's start. */
  constructor(
    private readonly fps: number,
    { capacity = 90, leadInMs = LEAD_IN_MS }: { capacity?: number; leadInMs?: number } = {},
  ) {
    this.capacity = capacity;
    this.leadInMs = leadInMs;
  }

  get size(): number {
    return this.entries.length;
  }

  /** Wall-clock time of moment `index` (in the future while no frame has come). */
  momentOf(index: number): number {
    return (this.start ?? Number.POSITIVE_INFINITY) + (index * 1000) / this.fps;
  }

  push(frame: ScreencastFrame, ack: () => void): void {
    const entry = { frame, ack, acked: false };
    if (frame.timestamp < this.shownAt) return acknowledge(entry);
    this.start ??= frame.receivedAt + this.leadInMs;
    let at = this.entries.length;
    while (at > 0 && (this.entries[at - 1] as Entry).frame.timestamp > frame.timestamp) at--;
    this.entries.splice(at, 0, entry);
    this.prune();
    this.arrived.notify();
  }

  /**
   * Resolves once moment 0 is fixed: a lead-in after the first frame arrived or, when no frame came
   * within FIRST_FRAME_MS of the first call (a screencast that has nothing to send), then.
   */
  async started(signal: AbortSignal): Promise<void> {
    this.firstFrameBy ??= Date.now() + FIRST_FRAME_MS;
    while (this.start === undefined) {
      const left = this.firstFrameBy - Date.now();
      if (left <= 0) this.start = Date.now();
      else await this.arrived.wait(left, signal);
    }
  }

  /**
   * Resolves once the frame on screen at moment `index` is known for sure (a frame drawn after it
   * has arrived) or, for a page that stopped changing, `latencyMs` after that moment.
   */
  async settle(index: number, latencyMs: number, signal: AbortSignal): Promise<void> {
    await this.started(signal);
    while ((this.entries.at(-1)?.frame.timestamp ?? Number.NEGATIVE_INFINITY) <= this.momentOf(index)) {
      const left = this.momentOf(index) + latencyMs - Date.now();
      if (left <= 0) return;
      await this.arrived.wait(left, signal);
    }
  }

  /** The frame drawn nearest to moment `index` of those there are; moments are taken in order. */
  take(index: number): ScreencastFrame | undefined {
    const moment = this.momentOf(index);
    let chosen = this.entries[0];
    this.entries.forEach((entry, at) => {
      if (this.nearestFrom(at) <= moment) chosen = entry;
    });
    this.next = index + 1;
    if (chosen) this.shownAt = Math.max(this.shownAt, chosen.frame.timestamp);
    this.prune();
    return chosen?.frame;
  }

  /** From when on frame `at` is the nearest: halfway from the one drawn before it (the first: always). */
  private nearestFrom(at: number): number {
    if (at === 0) return Number.NEGATIVE_INFINITY;
    return ((this.entries[at - 1] as Entry).frame.timestamp + (this.entries[at] as Entry).frame.timestamp) / 2;
  }

  /**
   * Lets go of every frame no moment from `next` on can show (another is nearer to each of them),
   * then acknowledges the oldest up to the capacity. A frame let go had no moment between its
   * neighbours' halfway marks, so none changes hands between the two it leaves side by side.
   */
  private prune(): void {
    const from = this.momentOf(this.next);
    for (let at = this.entries.length - 2; at >= 0; at--) {
      if (!this.momentIn(Math.max(this.nearestFrom(at), from), this.nearestFrom(at + 1))) acknowledge(this.entries.splice(at, 1)[0] as Entry);
    }
    const count = Math.min(this.entries.length, this.capacity);
    for (let index = 0; index < count; index++) acknowledge(this.entries[index] as Entry);
  }

  /** Whether a moment falls in [from, to). */
  private momentIn(from: number, to: number): boolean {
    const index = Math.ceil(((from - (this.start ?? 0)) * this.fps) / 1000 - 1e-9);
    return this.momentOf(index) < to;
  }
}

function acknowledge(entry: Entry): void {
  if (entry.acked) return;
  entry.acked = true;
  entry.ack();
}
