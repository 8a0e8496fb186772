import type { BrowserLease, ContextPool, LeaseWants, OutboundProxy, PoolStats, PreparedContext } from '../core/ports.js';
import { captureErrors } from '../core/errors/factories.js';
import { BrowserGenerations } from './generations.js';
import type { LaunchOptions } from './launch.js';
import { RendererWatchdog, type WatchdogOptions } from './renderer-watchdog.js';
import { SlotLifecycle, type Slot } from './pool-slot.js';
import { KeptContexts, type ContextReuseOptions } from './kept-contexts.js';
import { WarmContexts } from './warm-contexts.js';
import { ContextLending } from './context-lending.js';
import { PoolAdmission } from './pool-admission.js';
import { PoolShutdown } from './pool-shutdown.js';
import { BEGIN_FRAME_SWITCHES } from './begin-frame-control.js';

export type { ContextReuseOptions } from './kept-contexts.js';

export interface BrowserPoolOptions extends LaunchOptions {
  /** Captures running at once. */
  concurrency: number;
  /** Captures waiting for a slot before new ones get SERVICE_BUSY. */
  maxQueue: number;
  /** Contexts kept open and ready so a capture does not wait for one. */
  warmContexts: number;
  /** After this long without a capture, the warm contexts are closed until the next capture (0: kept). */
  warmIdleMs: number;
  /** Relaunch the browser after this many captures, draining the old one (0 = never). */
  recycleAfter: number;
  /** Per-context options and resources (e.g. an egress proxy session), made for every context. */
  prepareContext?: (proxy?: OutboundProxy) => Promise<PreparedContext>;
  /** Keep contexts for later captures with the same reuse key (off when absent). */
  contextReuse?: ContextReuseOptions;
  /** Ceilings on a local browser's processes, read from /proc (off when absent). */
  watchdog?: WatchdogOptions;
  /**
   * Launch the browser with begin-frame control (BEGIN_FRAME_SWITCHES): its pages draw only when sent
   * frames, on the wall clock while they load, frame by frame once a video takes over. For videos only.
   */
  beginFrameControl?: boolean;
}

/**
 * Long-lived Chromium, an isolated context per capture, bounded concurrency and queue, and
 * contexts opened ahead of time so a capture at rest does not wait for one.
 */
export class BrowserPool implements ContextPool {
  private readonly generations: BrowserGenerations;
  private readonly slots: SlotLifecycle;
  private readonly shutdown: PoolShutdown;
  private readonly admission: PoolAdmission;
  private readonly warm: WarmContexts;
  /** With the lent ones, at most `concurrency`. */
  private readonly kept: KeptContexts | undefined;
  private readonly lending: ContextLending;
  private readonly watchdog: RendererWatchdog | undefined;
  /** Since when no capture has held, opened or waited for a context; undefined while one does. */
  private idleSince: number | undefined = Date.now();
  /** The warm contexts were let go after `warmIdleMs` at rest: none opens until a capture comes. */
  private resting = false;
  private restTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: BrowserPoolOptions) {
    const { log, concurrency, warmContexts } = options;
    const { beginFrameControl } = options;
    this.generations = new BrowserGenerations(beginFrameControl ? { ...options, args: [...options.args, ...BEGIN_FRAME_SWITCHES] } : options);
    this.slots = new SlotLifecycle(this.generations, { prepareContext: options.prepareContext, trackOrigins: options.contextReuse !== undefined, log, beginFrameControl });
    this.shutdown = new PoolShutdown(this.slots);
    this.admission = new PoolAdmission(options, this.shutdown.signal);
    const closed = (): boolean => this.shutdown.closed;
    const changed = (): void => this.noteActivity();
    const refill = (): void => this.refill();
    const closeLater = (slot: Slot): void => this.shutdown.closeLater(slot);
    this.warm = new WarmContexts(this.slots, { closed, changed, settled: refill, log });
    if (options.contextReuse) this.kept = new KeptContexts(options.contextReuse, closeLater);
    const { generations, slots, warm, kept } = this;
    this.lending = new ContextLending({ generations, slots, warm, kept, concurrency, warmContexts, log, closed, changed, refill, closeLater });
    if (options.watchdog) this.watchdog = new RendererWatchdog(this.generations, () => this.idleSince, options.watchdog, log);
  }

  /** Launches the browser and fills the warm contexts. */
  async start(): Promise<void> {
    await this.generations.get();
    this.refill();
    this.watchdog?.start();
  }

  get stats(): PoolStats {
    return {
      running: this.lending.running,
      queued: this.admission.waiting,
      warm: this.warm.size,
      reusable: this.kept?.size ?? 0,
      contexts: this.generations.openContexts,
      connected: this.generations.connected,
      launches: this.generations.launches,
      full: this.admission.isFull(),
      renderersKilled: { ...(this.watchdog?.killed ?? { busy: 0, memory: 0 }) },
      browserMemoryBytes: this.watchdog?.memoryBytes ?? 0,
    };
  }

  /**
   * Runs `task` with a context once a slot is free: a fresh one, or with `contextReuse` one kept
   * for `wants.reuseKey`. Afterwards the context is closed, or reset and kept when the task
   * succeeded and reuse allows it. Throws SERVICE_BUSY at once when the queue is full.
   */
  async run<T>(signal: AbortSignal, task: (lease: BrowserLease) => Promise<T>, wants: LeaseWants = {}): Promise<T> {
    if (this.shutdown.closed) throw captureErrors.shuttingDown();
    this.resting = false;
    const { outcome } = await this.admission.admit(signal, wants, () => this.lending.lend(signal, task, wants));
    if (outcome.status === 'rejected') throw outcome.reason;
    return outcome.value;
  }

  /** Refuses new work, waits for running captures, closes every context and the browser. */
  close(): Promise<void> {
    clearTimeout(this.restTimer);
    const { admission, lending, warm, kept, generations, watchdog } = this;
    return this.shutdown.close({ admission, lending, warm, kept, generations, watchdog });
  }

  /** Called whenever captures or warm contexts come or go. */
  private noteActivity(): void {
    const idle = this.lending.holding === 0 && !this.warm.busy && this.admission.waiting === 0;
    this.idleSince = idle ? (this.idleSince ?? Date.now()) : undefined;
    if (!idle || this.resting || this.options.warmIdleMs === 0) {
      clearTimeout(this.restTimer);
      this.restTimer = undefined;
    } else {
      this.restTimer ??= setTimeout(() => this.rest(), this.options.warmIdleMs).unref();
    }
  }

  /**
   * A service at rest holds what a bare browser does: its warm contexts' renderers go, and the
   * next capture, which opens its own, brings them back.
   */
  private rest(): void {
    this.restTimer = undefined;
    if (this.shutdown.closed || this.idleSince === undefined) return;
    this.resting = true;
    for (const slot of this.warm.surplus(0)) this.shutdown.closeLater(slot);
  }

  /**
   * Keeps contexts ready in the background, as many as `warmContexts` less the captures running or
   * waiting and the contexts kept for reuse: a warm context only saves a capture at rest the wait
   * for one. Under load every capture opens its own, which costs less: a page left waiting before
   * its first navigation cost Chromium about 90 CPU-ms more per capture than one navigated at once
   * (benchmarks/results/cpu.md).
   */
  private refill(): void {
    if (this.shutdown.closed || this.warm.busy || this.resting) return;
    // A kept context on a retired browser would keep that browser from closing until it expires.
    this.kept?.evictUnusable();
    this.warm.fill(this.options.warmContexts - this.lending.running - this.admission.waiting - (this.kept?.size ?? 0));
  }
}
