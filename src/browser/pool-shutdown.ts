import { captureErrors } from '../core/errors/factories.js';
import { CLOSE_TIMEOUT_MS } from './close-timeout.js';
import type { BrowserGenerations } from './generations.js';
import type { Slot, SlotLifecycle } from './pool-slot.js';
import type { KeptContexts } from './kept-contexts.js';
import type { WarmContexts } from './warm-contexts.js';
import type { PoolAdmission } from './pool-admission.js';
import type { ContextLending } from './context-lending.js';
import type { RendererWatchdog } from './renderer-watchdog.js';

/** What a closing pool stops, waits for and closes. */
export interface ClosingParts {
  admission: PoolAdmission;
  lending: ContextLending;
  warm: WarmContexts;
  kept: KeptContexts | undefined;
  generations: BrowserGenerations;
  watchdog: RendererWatchdog | undefined;
}

/**
 * A pool's end, and the contexts it closes in the background before it (kept ones evicted, warm
 * ones in surplus), which the end waits for too.
 */
export class PoolShutdown {
  private ended = false;
  private readonly aborter = new AbortController();
  private readonly closingSlots = new Set<Promise<void>>();

  constructor(private readonly slots: SlotLifecycle) {}

  get closed(): boolean {
    return this.ended;
  }

  /** Aborts when the pool closes. */
  get signal(): AbortSignal {
    return this.aborter.signal;
  }

  /** Closes a context in the background; `close()` waits for it. */
  closeLater(slot: Slot): void {
    const closing = this.slots.dispose(slot).finally(() => this.closingSlots.delete(closing));
    this.closingSlots.add(closing);
  }

  /** Refuses new work, waits for running captures, closes every context and the browser. */
  async close({ admission, lending, warm, kept, generations, watchdog }: ClosingParts): Promise<void> {
    this.ended = true;
    watchdog?.stop();
    generations.refuseLaunches();
    this.aborter.abort(captureErrors.shuttingDown());
    await admission.onIdle();
    await lending.drain();
    kept?.evictAll();
    await Promise.all([...warm.surplus(0).map((slot) => this.slots.dispose(slot)), ...this.closingSlots]);
    await warm.opened(CLOSE_TIMEOUT_MS);
    await generations.close();
  }
}
