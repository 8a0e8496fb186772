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

  /**
   * Both browsers' counts added up; the video browser's first launch is no restart. `connected` and
   * `full` are the main pool's, which most captures wait for: a video browser that went away is
   * launched again by the next video.
   */
  get stats(): PoolStats {
    const main = this.main.stats;
    const video = this.video.stats;
    return {
      running: main.running + video.running,
      queued: main.queued + video.queued,
      warm: main.warm,
      reusable: main.reusable,
      contexts: main.contexts + video.contexts,
      connected: main.connected,
      launches: main.launches + Math.max(0, video.launches - 1),
      full: main.full,
      renderersKilled: { busy: main.renderersKilled.busy + video.renderersKilled.busy, memory: main.renderersKilled.memory + video.renderersKilled.memory },
      browserMemoryBytes: main.browserMemoryBytes + video.browserMemoryBytes,
    };
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
