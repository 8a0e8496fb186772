import type { BrowserLease, ContextPool, LeaseWants, PoolStats } from '../core/ports.js';
import type { BrowserPool } from './pool.js';

/**
 * The engine's browser pool beside a second one whose browser has begin-frame control (issue 53),
 * for the videos drawn frame by frame (`wants.frameByFrame`): begin-frame control is a launch switch
 * that holds for every page of its browser, which would draw none of the other captures' pages. The
 * video browser is launched on the first such video; both are recycled, watched and closed alike.
 */
export class PoolWithVideoBrowser implements ContextPool {
  private videoStarted: Promise<void> | undefined;

  constructor(
    private readonly main: BrowserPool,
    private readonly video: BrowserPool,
  ) {}

  start(): Promise<void> {
    return this.main.start();
  }

  /** The main pool's: the video browser's captures are not counted in them yet. */
  get stats(): PoolStats {
    return this.main.stats;
  }

  async run<T>(signal: AbortSignal, task: (lease: BrowserLease) => Promise<T>, wants: LeaseWants = {}): Promise<T> {
    if (!wants.frameByFrame) return this.main.run(signal, task, wants);
    this.videoStarted ??= this.video.start().catch((error: unknown) => {
      this.videoStarted = undefined;
      throw error;
    });
    await this.videoStarted;
    return this.video.run(signal, task, wants);
  }

  async close(): Promise<void> {
    await Promise.all([this.main.close(), this.video.close()]);
  }
}
