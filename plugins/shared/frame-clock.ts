/**
 * Wall-clock moment of each frame of a video made in real time. Time starts when the encoder asks
 * for its second frame, not its first: between the two ffmpeg starts up (up to seconds on a busy
 * machine), and counting that time would skip the start of the recording.
 */
export class FrameClock {
  private start: number;

  constructor(
    private readonly fps: number,
    private readonly now: () => number = Date.now,
  ) {
    this.start = now();
  }

  /** Moment of frame `index`; call it in order, when the encoder asks for that frame. */
  at(index: number): number {
    if (index === 1) this.start = this.now() - 1000 / this.fps;
    return this.start + (index * 1000) / this.fps;
  }
}
