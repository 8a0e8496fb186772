import type { ScrollEasing } from '../../src/core/schema/video-params.js';

export interface ScrollTimelineOptions {
  fps: number;
  /** Pixels per step (`scroll_by`). */
  scrollBy: number;
  /** Pause after each step in ms (`scroll_delay`). */
  delayMs: number;
  /** Length of one step's animation in ms; at least one frame so no step is ever skipped. */
  animationMs: number;
  /** The curve of each step (`scroll_easing`). @default 'ease_in_out' */
  easing?: ScrollEasing;
  /** How long the first position is held before the first step (`scroll_start_delay`). @default 0 */
  startDelayMs?: number;
  /**
   * `scroll_back`: the length of the video in ms, over which the page goes down for at most half
   * the scrolling time, then back to the top in the time left. @default undefined (no return)
   */
  backWithinMs?: number;
}

/** The curves of `scroll_easing`, from progress 0..1 to distance 0..1; cubic, as CSS's ease curves roughly are. */
export const EASINGS: Record<ScrollEasing, (progress: number) => number> = {
  linear: (progress) => progress,
  ease_in: (progress) => progress ** 3,
  ease_out: (progress) => 1 - (1 - progress) ** 3,
  // Slow start, slow finish, like a smooth scroll a person triggers.
  ease_in_out: (progress) => (progress < 0.5 ? 4 * progress ** 3 : 1 - (-2 * progress + 2) ** 3 / 2),
};

/**
 * Where the page is at each frame: after the start delay, a step scrolls `scrollBy` px with an
 * eased animation, then holds for `delayMs`; at the bottom steps hold. Each step stops at the
 * page's bottom as measured when it starts, so a page that grows while it scrolls (lazy content,
 * infinite lists) simply goes on at the next step. With `backWithinMs`, the first step that starts
 * at the bottom or past half the scrolling time returns to the top instead, eased over the time
 * left. Depends only on the frame index and the page's size, never on the clock.
 */
export class ScrollTimeline {
  private readonly animationMs: number;
  private readonly periodMs: number;
  private readonly ease: (progress: number) => number;
  private step = -1;
  private from = 0;
  private to = 0;
  /** When the return to the top started (timeline ms) and from where; undefined while going down. */
  private back: { at: number; from: number } | undefined;

  constructor(private readonly options: ScrollTimelineOptions) {
    this.animationMs = Math.max(options.animationMs, 1000 / options.fps);
    this.periodMs = this.animationMs + options.delayMs;
    this.ease = EASINGS[options.easing ?? 'ease_in_out'];
  }

  /** Time of frame `index` on the scrolling timeline: negative during the start delay. */
  private timeOf(index: number): number {
    return (index * 1000) / this.options.fps - (this.options.startDelayMs ?? 0);
  }

  /** The step frame `index` belongs to (-1 during the start delay): the caller measures the page afresh when it changes. */
  stepOf(index: number): number {
    const time = this.timeOf(index);
    return time < 0 ? -1 : Math.floor(time / this.periodMs);
  }

  /**
   * Scroll position of frame `index`, called in increasing order of frames (some may be skipped).
   * `current` is where the page is at the first frame and `maxScroll` how far it can scroll now,
   * read at the start of each step.
   */
  positionAt(index: number, current: number, maxScroll: number): number {
    const time = this.timeOf(index);
    const step = this.stepOf(index);
    if (step < 0) return Math.round(current);
    if (step !== this.step && this.back === undefined) {
      // Continue from where the last step was headed: without a pause its last frame falls just
      // short of it, and starting from there would lose a little on every step.
      this.from = this.step < 0 ? current : this.to;
      this.step = step;
      this.to = Math.max(this.from, Math.min(this.from + this.options.scrollBy, maxScroll));
      if (this.returnsAt(step * this.periodMs, this.from, maxScroll)) this.back = { at: step * this.periodMs, from: this.from };
    }
    if (this.back !== undefined) return Math.round(this.back.from * (1 - this.ease(this.returnProgress(time))));
    const progress = Math.min(1, (time - step * this.periodMs) / this.animationMs);
    return Math.round(this.from + (this.to - this.from) * this.ease(progress));
  }

  /** Whether a step starting at `time` from `from` goes back to the top instead (`backWithinMs`). */
  private returnsAt(time: number, from: number, maxScroll: number): boolean {
    if (this.options.backWithinMs === undefined || from <= 0) return false;
    return from >= maxScroll || time >= this.scrollingMs() / 2;
  }

  /** How far the return to the top is at `time`: it ends on the last frame. */
  private returnProgress(time: number): number {
    const { at } = this.back as { at: number };
    const end = this.scrollingMs() - 1000 / this.options.fps;
    return end <= at ? 1 : Math.min(1, (time - at) / (end - at));
  }

  /** The video's length after the start delay. */
  private scrollingMs(): number {
    return (this.options.backWithinMs ?? 0) - (this.options.startDelayMs ?? 0);
  }
}
