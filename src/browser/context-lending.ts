import type { BrowserLease, LeaseWants } from '../core/ports.js';
import type { Logger } from '../core/telemetry/logger.js';
import { abortable } from '../core/deadline.js';
import type { BrowserGenerations } from './generations.js';
import { usable, type Slot, type SlotLifecycle } from './pool-slot.js';
import type { KeptContexts } from './kept-contexts.js';
import type { WarmContexts } from './warm-contexts.js';

/** How a capture on a lent context ended, and the end of its context's release, which comes later. */
export interface Lent<T> {
  outcome: PromiseSettledResult<T>;
  released: Promise<void>;
}

/** The pool's parts a lending draws on, and what it tells the pool. */
export interface LendingParts {
  generations: BrowserGenerations;
  slots: SlotLifecycle;
  warm: WarmContexts;
  kept: KeptContexts | undefined;
  /** Captures at once: contexts lent and kept stay within it. */
  concurrency: number;
  /** Contexts lent, kept and warm stay within it. */
  warmContexts: number;
  log: Logger;
  closed: () => boolean;
  /** Closes a context in the background; the pool's close waits for it. */
  closeLater: (slot: Slot) => void;
  /** Captures holding contexts came or went. */
  changed: () => void;
  /** Opens warm contexts if fewer are ready than wanted. */
  refill: () => void;
}

/** Lends contexts to captures: a kept, warm or fresh one, then closed, or reset and kept, after the capture. */
export class ContextLending {
  /** Captures holding a context or opening one (a capture that gave up while it opened included). */
  private lent = 0;
  /** Lendings until their context is released; the queue forgets a task once its signal aborts, this set does not. */
  private readonly active = new Set<Promise<void>>();

  constructor(private readonly parts: LendingParts) {}

  /** Captures past the queue whose context is not released yet. */
  get running(): number {
    return this.active.size;
  }

  /** Captures holding a context or opening one. */
  get holding(): number {
    return this.lent;
  }

  /** Resolves once every lending so far has released its context, those that start meanwhile included. */
  async drain(): Promise<void> {
    while (this.active.size > 0) await Promise.allSettled([...this.active]);
  }

  /**
   * Runs `task` on a context and answers how it ended as soon as it ends; `released` ends once the
   * context is closed, or reset and kept, so closing never adds to a capture's latency.
   */
  lend<T>(signal: AbortSignal, task: (lease: BrowserLease) => Promise<T>, wants: LeaseWants): Promise<Lent<T>> {
    this.lent++;
    this.parts.changed();
    const lent = this.runOnContext(signal, task, wants);
    const released = lent
      .then((done) => done.released)
      .catch((error: unknown) => this.parts.log.warn({ error: String(error) }, 'could not release a browser context'))
      .finally(() => {
        this.lent--;
        // No longer running when the warm contexts are counted again, or a capture that ends last would keep the last one from coming back.
        this.active.delete(released);
        this.parts.refill();
        this.parts.changed();
      });
    this.active.add(released);
    return lent.then(({ outcome }) => ({ outcome, released }));
  }

  /** Takes a context, runs the task on it, and gives the context back whatever happened. */
  private async runOnContext<T>(signal: AbortSignal, task: (lease: BrowserLease) => Promise<T>, wants: LeaseWants): Promise<Lent<T>> {
    const taking = this.take(wants);
    const taken = await settle(() => abortable(taking, signal));
    // The capture gave up while its context was opening: that context is closed once open.
    if (taken.status === 'rejected') return { outcome: taken, released: taking.then((late) => this.parts.slots.dispose(late), () => undefined) };
    const slot = taken.value;
    const outcome = await settle(() => task({ context: slot.context, page: slot.page, cdp: slot.cdp, attachment: slot.prepared.attachment, beginFrames: slot.beginFrames, abandon: () => void (slot.abandoned = true) }));
    // A failed capture may have left anything behind (a wedged page, a script still running).
    // A context of the capture's own proxy serves that capture only.
    const released = outcome.status === 'fulfilled' && !slot.abandoned ? this.release(slot, wants.proxy ? undefined : wants.reuseKey) : this.parts.slots.reclaim(slot);
    return { outcome, released };
  }

  /**
   * A warm context when one is left, else one opened at the capture's viewport (and for its proxy):
   * resizing a page costs Chromium two more protocol calls and a layout.
   */
  private async take(wants: LeaseWants): Promise<Slot> {
    const { generations, slots, warm, kept } = this.parts;
    // A capture with its own proxy needs a context whose every connection leaves through it.
    const shared = wants.proxy === undefined;
    let slot = !shared || wants.reuseKey === undefined ? undefined : await kept?.take(wants.reuseKey, (candidate) => !generations.isDue(candidate.generation), (stale) => slots.dispose(stale));
    if (shared) slot ??= warm.shift() ?? (await warm.next());
    while (slot && !usable(slot)) {
      await slots.dispose(slot);
      slot = warm.shift();
    }
    if (!slot) {
      // Contexts kept for other keys make room: contexts lent and kept stay within `concurrency`.
      kept?.trim(this.parts.concurrency - this.lent);
      slot = await slots.open(wants.viewport, wants.proxy);
    }
    // Opening a context costs Chromium a renderer launch: while warm ones are left, the
    // replacement waits for this capture's release instead of competing with it for the CPU.
    if (warm.size === 0) this.parts.refill();
    slot.uses++;
    slot.generation.captures++;
    return slot;
  }

  /** Keeps the context for the next capture with `reuseKey` when reuse allows it, else closes it. */
  private async release(slot: Slot, reuseKey?: string): Promise<void> {
    const { kept, warm, log } = this.parts;
    const keep = kept !== undefined && reuseKey !== undefined && !this.parts.closed();
    if (keep && (await kept.keepAfterReset(slot, reuseKey, (error) => log.warn({ error: String(error) }, 'could not reset a browser context for reuse')))) {
      // This context moves from lent to kept.
      const lentElsewhere = this.lent - 1;
      kept.trim(this.parts.concurrency - lentElsewhere);
      // It serves the key's next capture, which a warm context was opened for: lent, kept and warm
      // together stay within `warmContexts`, else a warm renderer idles next to the kept ones.
      for (const surplus of warm.surplus(this.parts.warmContexts - lentElsewhere - kept.size)) this.parts.closeLater(surplus);
      return;
    }
    await this.parts.slots.dispose(slot);
  }
}

/** `run`'s outcome as a value: a throw, synchronous or not, becomes a rejected outcome. */
async function settle<T>(run: () => Promise<T>): Promise<PromiseSettledResult<T>> {
  try {
    return { status: 'fulfilled', value: await run() };
  } catch (reason) {
    return { status: 'rejected', reason };
  }
}
