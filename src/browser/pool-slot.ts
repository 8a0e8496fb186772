import type { OutboundProxy, PreparedContext, Viewport } from '../core/ports.js';
import type { Logger } from '../core/telemetry/logger.js';
import { settlesWithin } from '../core/deadline.js';
import type { BrowserGenerations, Generation } from './generations.js';
import { openCapturePage, type CapturePage } from './open-capture-page.js';
import { CLOSE_TIMEOUT_MS } from './close-timeout.js';
import { pumpBeginFrames, type BeginFramePump } from './begin-frame-control.js';

/** A browser context of the pool with its page, whichever capture it serves. */
export interface Slot extends CapturePage {
  prepared: PreparedContext;
  generation: Generation;
  /** Captures this context has been lent to. */
  uses: number;
  /** Origins its pages loaded (only tracked when contexts are reused): a reset clears their storage. */
  origins: Set<string>;
  /** Its capture could not clean up after itself: it is reclaimed by force. */
  abandoned: boolean;
  /** Its page's renderer crashed or was killed (the watchdog kills busy idle ones). */
  crashed: boolean;
  /** In a browser with begin-frame control: the frames that draw its page until a video takes over. */
  beginFrames?: BeginFramePump;
}

/** How long a protocol call that stops or crashes a renderer may take. */
const TERMINATE_TIMEOUT_MS = 1_000;

/** Whether a context can still serve a capture: its browser is up and current, its page open. */
export function usable(slot: Slot): boolean {
  return slot.generation.browser.isConnected() && !slot.generation.retired && !slot.page.isClosed() && !slot.crashed;
}

/** Opens and closes the pool's contexts, whatever state their pages are in. */
export class SlotLifecycle {
  constructor(
    private readonly generations: BrowserGenerations,
    private readonly options: { prepareContext?: (proxy?: OutboundProxy) => Promise<PreparedContext>; trackOrigins: boolean; log: Logger; beginFrameControl?: boolean },
  ) {}

  async open(viewport?: Viewport, proxy?: OutboundProxy): Promise<Slot> {
    const generation = await this.generations.get();
    if (proxy && !this.options.prepareContext) throw new Error('This pool has no egress guard to route a capture through its proxy');
    const prepared = (await this.options.prepareContext?.(proxy)) ?? { options: {}, dispose: async () => undefined };
    generation.open++;
    try {
      const page = await openCapturePage((options) => generation.browser.newContext(options), { ...prepared.options, ...(generation.userAgent === undefined ? {} : { userAgent: generation.userAgent }), ...(viewport ? { viewport } : {}) }, this.options.beginFrameControl);
      const origins = new Set<string>();
      if (this.options.trackOrigins) page.context.on('request', (request) => origins.add(new URL(request.url()).origin));
      const beginFrames = this.options.beginFrameControl ? pumpBeginFrames(page.cdp) : undefined;
      const slot: Slot = { ...page, prepared, generation, uses: 0, origins, abandoned: false, crashed: false, beginFrames };
      page.page.once('crash', () => void (slot.crashed = true));
      return slot;
    } catch (error) {
      generation.open--;
      await prepared.dispose();
      throw error;
    }
  }

  /** Closes a context; one that does not close in time (a renderer that stopped answering) has its renderer crashed. */
  async dispose(slot: Slot): Promise<void> {
    // A dead browser took its contexts with it; asking it to close one only waits for a timeout.
    if (slot.generation.browser.isConnected() && !(await settlesWithin(slot.context.close(), CLOSE_TIMEOUT_MS))) {
      this.options.log.warn({}, 'a browser context did not close; crashing its renderer');
      await settlesWithin(slot.cdp.send('Page.crash'), TERMINATE_TIMEOUT_MS);
    }
    await slot.prepared.dispose().catch(() => undefined);
    await this.generations.contextClosed(slot.generation);
  }

  /**
   * Closes the context of a capture that failed or could not clean up after itself, whatever its
   * pages are doing: a script spinning on the page is stopped first, since a renderer busy in
   * JavaScript does not answer `close`. Stopping a script and crashing a renderer are among the
   * protocol calls Chromium answers even while the page's main thread is busy.
   */
  async reclaim(slot: Slot): Promise<void> {
    if (slot.generation.browser.isConnected()) await settlesWithin(slot.cdp.send('Runtime.terminateExecution'), TERMINATE_TIMEOUT_MS);
    await this.dispose(slot);
  }
}
