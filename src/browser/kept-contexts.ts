import { CLOSE_TIMEOUT_MS } from './close-timeout.js';
import { usable, type Slot } from './pool-slot.js';

export interface ContextReuseOptions {
  /** Captures one context serves before it is closed. */
  maxUses: number;
  /** How long a kept context waits for its next capture before it is closed. */
  idleMs: number;
}

/** A context kept after a capture, waiting for the next one with its key. */
interface KeptSlot {
  slot: Slot;
  key: string;
  expiry: NodeJS.Timeout;
}

/**
 * `contextReuse`: contexts kept after a capture for the next capture of the same account, reset
 * in between, each closed after `maxUses` captures or `idleMs` without one.
 */
export class KeptContexts {
  /** Oldest first. */
  private readonly entries: KeptSlot[] = [];

  constructor(
    private readonly reuse: ContextReuseOptions,
    /** Closes a context in the background. */
    private readonly closeLater: (slot: Slot) => void,
  ) {}

  get size(): number {
    return this.entries.length;
  }

  /**
   * The context most recently kept for `key` (its renderer is the likeliest to still be up); ones
   * that can no longer serve (`fresh` says no) are handed to `dispose` on the way.
   */
  async take(key: string, fresh: (slot: Slot) => boolean, dispose: (slot: Slot) => Promise<void>): Promise<Slot | undefined> {
    for (let entry = this.latest(key); entry; entry = this.latest(key)) {
      this.unkeep(entry);
      if (usable(entry.slot) && fresh(entry.slot)) return entry.slot;
      await dispose(entry.slot);
    }
    return undefined;
  }

  /**
   * Resets `slot` and keeps it for `key` when reuse allows it; false when it must be closed
   * instead (used up, unusable, or its reset failed).
   */
  async keepAfterReset(slot: Slot, key: string, onResetFailure: (error: unknown) => void): Promise<boolean> {
    if (slot.uses >= this.reuse.maxUses || !usable(slot)) return false;
    try {
      await resetSlot(slot);
    } catch (error) {
      onResetFailure(error);
      return false;
    }
    const entry: KeptSlot = { slot, key, expiry: setTimeout(() => this.evict(entry), this.reuse.idleMs) };
    entry.expiry.unref();
    this.entries.push(entry);
    return true;
  }

  /** Closes the oldest kept contexts until at most `max` are left. */
  trim(max: number): void {
    for (let oldest = this.entries[0]; oldest && this.entries.length > Math.max(0, max); oldest = this.entries[0]) this.evict(oldest);
  }

  /** Closes every kept context that can no longer serve (e.g. on a retired browser, which it would keep from closing). */
  evictUnusable(): void {
    for (const entry of this.entries.filter((kept) => !usable(kept.slot))) this.evict(entry);
  }

  evictAll(): void {
    for (const entry of [...this.entries]) this.evict(entry);
  }

  private latest(key: string): KeptSlot | undefined {
    return this.entries.findLast((kept) => kept.key === key);
  }

  /** Takes `entry` out of the kept contexts; false when it was no longer there. */
  private unkeep(entry: KeptSlot): boolean {
    const index = this.entries.indexOf(entry);
    if (index < 0) return false;
    this.entries.splice(index, 1);
    clearTimeout(entry.expiry);
    return true;
  }

  private evict(entry: KeptSlot): void {
    if (this.unkeep(entry)) this.closeLater(entry.slot);
  }
}

/**
 * A kept renderer holds its earlier pages' garbage until V8 collects it, which under steady reuse
 * it put off: about 0.8 MB a simple page, so renderers grew from 95 to about 150 MB over 40
 * captures. Collected at reset once the heap is past this, they stayed near 115 MB at no CPU cost
 * above the noise; collected at every reset, they cost 5-9 CPU-ms a capture more
 * (benchmarks/results/cpu.md).
 */
const KEPT_HEAP_LIMIT_BYTES = 8 * 1024 * 1024;

/**
 * Clears what a capture left on its context before the next capture with the same key: the page
 * leaves for about:blank (the site's renderer usually stays up, which is the point), other pages
 * close, the renderer's garbage is collected past a limit, cookies go, and so does the storage of
 * every origin its pages loaded (local storage, IndexedDB, Cache Storage); the egress session
 * forgets its failures.
 */
async function resetSlot(slot: Slot): Promise<void> {
  await slot.page.goto('about:blank', { timeout: CLOSE_TIMEOUT_MS });
  for (const page of slot.context.pages()) if (page !== slot.page) await page.close();
  const { usedSize } = await slot.cdp.send('Runtime.getHeapUsage');
  if (usedSize > KEPT_HEAP_LIMIT_BYTES) await slot.cdp.send('HeapProfiler.collectGarbage');
  await slot.context.clearCookies();
  for (const origin of slot.origins) {
    if (origin !== 'null') await slot.cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' });
  }
  slot.origins.clear();
  slot.prepared.reset?.();
}
