export interface ScrollTimelineOptions {
  fps: number;
  /** Pixels per step (`scroll_by`). */
  scrollBy: number;
  /** Pause after each step in ms (`scroll_delay`). */
  delayMs: number;
  /** Length of one step's animation in ms; at least one frame so no step is ever skipped. */
  animationMs: number;
}

/** Slow start, slow finish, like a smooth scroll a person triggers. */
export function easeInOutCubic(progress: number): number {
  return progress < 0.5 ? 4 * progress ** 3 : 1 - (-2 * progress + 2) ** 3 / 2;
}

/**
 * Where the page is at each frame: a step scrolls `scrollBy` px with an eased animation, then
 * holds for `delayMs`; at the bottom steps hold. Each step stops at the page's bottom as measured
 * when it starts, so a page that grows while it scrolls (lazy content, infinite lists) simply goes
 * on at the next step. Depends only on the frame index and the page's size, never on the clock.
 */
export class ScrollTimeline {
  private readonly animationMs: number;
  private readonly periodMs: number;
  private step = -1;
  private from = 0;
  private to = 0;

  constructor(private readonly options: ScrollTimelineOptions) {
    this.animationMs = Math.max(options.animationMs, 1000 / options.fps);
    this.periodMs = this.animationMs + options.delayMs;
  }

  private timeOf(index: number): number {
    return (index * 1000) / this.options.fps;
  }

  /** The step frame `index` belongs to: the caller measures the page afresh when it changes. */
  stepOf(index: number): number {
    return Math.floor(this.timeOf(index) / this.periodMs);
  }

  /**
   * Scroll position of frame `index`, called in increasing order of frames (some may be skipped). `current` is where the page
   * is at the first frame and `maxScroll` how far it can scroll now, read at the start of each step.
   */
  positionAt(index: number, current: number, maxScroll: number): number {
    const step = this.stepOf(index);
    if (step !== this.step) {
      // Continue from where the last step was headed: without a pause its last frame falls just
      // short of it, and starting from there would lose a little on every step.
      this.from = this.step < 0 ? current : this.to;
      this.step = step;
      this.to = Math.max(this.from, Math.min(this.from + this.options.scrollBy, maxScroll));
    }
    const progress = Math.min(1, (this.timeOf(index) - step * this.periodMs) / this.animationMs);
    return Math.round(this.from + (this.to - this.from) * easeInOutCubic(progress));
  }
}
