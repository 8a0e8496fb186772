import type { CDPSession } from 'playwright-core';
import type { SeekClock } from './page-videos.js';

/**
 * A page's clocks (Chromium's virtual time, paused), advanced by a video drawn frame by frame to each
 * frame's moment. While `fetchWaitMs` of wall time is left, the clock stands still whenever the page
 * has fetches pending (`pauseIfNetworkFetchesPending`), so that data loading mid-video arrives at the
 * same moment of the page's time however slow the network; after it the clock advances regardless,
 * for a page whose request never ends must not stall the video.
 */
export class VirtualClock implements SeekClock {
  /** Where the clock stands, in ms from the moment it was paused. */
  private now = 0;
  /** The page's `performance.now()` when it was paused, read when it is first needed. */
  private pausedAt: Promise<number> | undefined;

  constructor(
    private readonly cdp: CDPSession,
    private fetchWaitMs: number,
  ) {}

  /** Lets the page run until `moment` (ms from the pause), its timers and tasks included, then pauses it again. */
  async advanceTo(moment: number): Promise<void> {
    if (this.fetchWaitMs <= 0) {
      await this.run('advance', moment - this.now);
    } else {
      this.pausedAt ??= this.pageNow();
      const pausedAt = await this.pausedAt;
      const started = performance.now();
      const reached = this.run('pauseIfNetworkFetchesPending', moment - this.now);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(resolve, this.fetchWaitMs, 'late')));
      const outcome = await Promise.race([reached, late]);
      clearTimeout(timer);
      this.fetchWaitMs -= performance.now() - started;
      // The fetches outlasted the wait: what is left of the budget (a new one replaces it) runs regardless.
      if (outcome === 'late') await this.run('advance', Math.max(0.001, pausedAt + moment - (await this.pageNow())));
    }
    this.now = moment;
  }

  /**
   * Lets the page run 1 µs further (`SeekClock`): a frame's few nudges, each a round trip of the
   * wall clock, stay far short of the next frame's moment.
   */
  async nudge(): Promise<void> {
    await this.run('advance', 0.001);
    this.now += 0.001;
  }

  /** The page's clock, which stands still between budgets. */
  private async pageNow(): Promise<number> {
    const { result } = await this.cdp.send('Runtime.evaluate', { expression: 'performance.now()', returnByValue: true });
    return result.value as number;
  }

  private async run(policy: 'advance' | 'pauseIfNetworkFetchesPending', budget: number): Promise<void> {
    const expired = new Promise((resolve) => this.cdp.once('Emulation.virtualTimeBudgetExpired', resolve));
    await this.cdp.send('Emulation.setVirtualTimePolicy', { policy, budget });
    await expired;
  }
}
