import type { CDPSession, Request } from 'playwright-core';
import type { CaptureContext, CapturePlugin } from '../../src/core/plugin-api.js';
import { stateKey } from '../../src/core/capture-state.js';
import { abortable, bestEffort, sleep } from '../../src/core/deadline.js';
import { LAST_CHANGE_KEY, type PageChangeRecord } from '../../src/core/page/page-changes.js';
import { pageWait, recordWait } from '../../src/core/page/page-wait.js';
import { isContentFormat } from '../../src/core/schema/formats.js';
import { evaluateInPage } from '../shared/evaluate-in-page.js';
import type { CaptureParams } from '../../src/core/schema/capture-params.js';
import { webFontsLoaded } from './web-fonts.js';

/** How long the page must stay still (no request, no DOM change, no layout shift) to count as settled. */
const QUIET_MS = 50;
/** How often a page that is still changing is looked at again. */
const POLL_MS = 10;
/** Longest the settle step waits; it never takes more than a quarter of what is left of the budget. */
const SETTLE_MAX_MS = 3_000;
/**
 * A request in flight longer than this is taken for a long poll or a stream, which never ends: the
 * page does not wait for it. A slow image or font still counts until then.
 */
const LONG_REQUEST_MS = 2_000;
/** Requests that never end or that the page does not wait for: streams, sockets, beacons. */
const NEVER_AWAITED = new Set(['eventsource', 'websocket', 'ping', 'media']);

/** The page's requests in flight, with when each started, and when one last started or ended. */
interface Loads {
  inflight: Map<Request, number>;
  lastActivity: number;
}
const LOADS = stateKey<Loads>('page-settle.loads');

/** What `pageStillness` answers. */
interface Stillness {
  busy: boolean;
  quietFor: number;
  /** The document runs no script of its own: parsed, it changes only by what it loads or animates. */
  scriptless: boolean;
}
/**
 * The page's stillness as read by the look that found its fonts loaded: the settle step, next in
 * the same phase, takes it as its first probe instead of a round trip of its own.
 */
const FIRST_LOOK = stateKey<Stillness | undefined>('page-settle.first-look');

const settles = (params: CaptureParams): boolean => params.settle && params.scenario === 'static';

/**
 * The default wait for a page to look finished, after `wait_until` and before the caller's own
 * waits (`settle=false` turns it off): no request in flight (long polls, streams and beacons aside),
 * no DOM change and no layout shift for a moment (none to wait for in a loaded page that runs
 * no script), no timer the page set while drawing itself pending (a status box cleared after
 * typesetting), the images in the viewport loaded, finite CSS animations and transitions over.
 * Bounded: a page that never stills (a ticking clock drawn by script) is captured as it is once the
 * step's time is up.
 *
 * Before it, settle or not, the page's web fonts are waited for within the capture's budget, as
 * Playwright's screenshots wait for them: a font that never arrives fails the capture (504 naming
 * `fonts`), or with `best_effort` the page is taken with its fallback and `incomplete` says `fonts`.
 */
export function pageSettle(): CapturePlugin {
  return {
    name: 'page-settle',
    stages: [
      {
        name: 'fonts',
        phase: 'settle',
        leavesContextState: false,
        // What the page says in text is read, not drawn.
        when: (params) => params.scenario === 'static' && !isContentFormat(params.format),
        run: (ctx) =>
          pageWait(ctx, 'fonts', async (_timeoutMs, signal) => {
            if (!settles(ctx.params)) return webFontsLoaded(ctx.cdp, signal);
            ctx.state.set(FIRST_LOOK, await webFontsLoaded<Stillness>(ctx.cdp, signal, `(${pageStillness.toString()})(${JSON.stringify(LAST_CHANGE_KEY)})`));
          }),
      },
      {
        name: 'watch-loads',
        phase: 'prepare',
        leavesContextState: false,
        when: settles,
        run: watchLoads,
      },
      {
        name: 'settle',
        phase: 'settle',
        leavesContextState: false,
        when: settles,
        run: async (ctx) => {
          const loads = ctx.state.get(LOADS);
          if (!loads) return;
          const firstLook = ctx.state.get(FIRST_LOOK);
          ctx.state.set(FIRST_LOOK, undefined);
          const budget = ctx.budget(SETTLE_MAX_MS);
          const started = performance.now();
          let settled = false;
          // Scripts of the capture's own (`init_scripts`, the cookie-banner handling) change a page that has none.
          const trustScriptless = ctx.params.init_scripts === undefined && !ctx.params.block_cookies;
          await bestEffort(async (signal) => void (settled = await settle(ctx.cdp, loads, { budgetMs: budget, trustScriptless }, signal, firstLook)), budget + 250, ctx.signal);
          recordWait(ctx, 'settle', settled ? 'met' : 'ran_out', started);
          if (!settled && ctx.params.best_effort) ctx.incomplete.push('settle');
        },
      },
    ],
  };
}

function watchLoads(ctx: CaptureContext): void {
  const { page } = ctx;
  const loads: Loads = { inflight: new Map(), lastActivity: performance.now() };
  ctx.state.set(LOADS, loads);
  const onRequest = (request: Request): void => {
    // The page's own document is what `wait_until` waits for; its parsing shows in the page's changes.
    if (NEVER_AWAITED.has(request.resourceType()) || (request.isNavigationRequest() && request.frame() === page.mainFrame())) return;
    loads.inflight.set(request, performance.now());
    loads.lastActivity = performance.now();
  };
  const onEnd = (request: Request): void => {
    if (loads.inflight.delete(request)) loads.lastActivity = performance.now();
  };
  page.on('request', onRequest);
  page.on('requestfinished', onEnd);
  page.on('requestfailed', onEnd);
  ctx.defer(() => {
    page.off('request', onRequest);
    page.off('requestfinished', onEnd);
    page.off('requestfailed', onEnd);
  });
}

/**
 * How long until the network can have been quiet for QUIET_MS (no request the page waits for in
 * flight, none started or ended): 0 once it has, a poll's time while such a request is in flight.
 */
function networkQuietIn(loads: Loads): number {
  const now = performance.now();
  for (const started of loads.inflight.values()) if (now - started < LONG_REQUEST_MS) return POLL_MS;
  return Math.max(0, QUIET_MS - (now - loads.lastActivity));
}

/**
 * Watches the page until it is still while the network is quiet: both at once, so that a page at
 * rest pays one quiet window at most. The waiting is done here, between probes of the page: with
 * `javascript=false` the page runs no timer, animation frame or observer of anyone's, the engine's
 * included, while a probe still runs. True when it settled within `budgetMs`.
 */
async function settle(cdp: CDPSession, loads: Loads, { budgetMs, trustScriptless }: { budgetMs: number; trustScriptless: boolean }, signal: AbortSignal, firstLook?: Stillness): Promise<boolean> {
  const endsAt = performance.now() + budgetMs;
  for (let look = firstLook; ; look = undefined) {
    const { busy, quietFor, scriptless } = look ?? (await abortable(evaluateInPage(cdp, pageStillness, LAST_CHANGE_KEY), signal));
    // Nothing changes a loaded document that runs no script but its loads and animations, which the
    // network's window and `busy` cover: it has no quiet window of its own to wait out.
    const pageQuietIn = !busy && scriptless && trustScriptless ? 0 : QUIET_MS - quietFor;
    if (!busy && pageQuietIn <= 0 && networkQuietIn(loads) === 0) return true;
    const left = endsAt - performance.now();
    if (left <= 0) return false;
    // Look again once the page and the network could both have been quiet for long enough: a look before cannot find them so.
    await sleep(Math.min(left, Math.max(POLL_MS, pageQuietIn, networkQuietIn(loads))), signal);
  }
}

/**
 * In the page: for how long nothing in the document has changed (as recorded under `key` since the
 * document started; a page of another pool, without the record, is watched from the first probe
 * on), and whether it is still busy: a timer the page set while drawing itself pending, an image
 * in the viewport loading or a finite animation running (fonts were waited for before).
 * Scriptless: loaded, and with no script element (HTML or SVG), no `on...` attribute, no frame or
 * plugin of its own and no refresh; such a page (a document rendered to PDF, a static site) is
 * finished once its loads are, with no quiet window to wait out (50 ms of a 100-150 ms capture).
 */
function pageStillness(key: string): Stillness {
  const slot = Symbol.for(key);
  const page = window as unknown as Record<symbol, PageChangeRecord | undefined>;
  let record = page[slot];
  if (!record) {
    let last = performance.now();
    new MutationObserver(() => void (last = performance.now())).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    record = { timersPending: 0, get lastChange() { return last; } };
    Object.defineProperty(window, slot, { value: record, configurable: true });
  }
  const inViewport = (element: Element): boolean => {
    const box = element.getBoundingClientRect();
    return box.bottom > 0 && box.right > 0 && box.top < innerHeight && box.left < innerWidth && box.width > 0 && box.height > 0;
  };
  const busy =
    record.timersPending > 0 ||
    [...document.images].some((image) => !image.complete && image.loading !== 'lazy' && inViewport(image)) ||
    document.getAnimations().some((animation) => {
      const end = animation.effect?.getComputedTiming().endTime;
      return animation.playState === 'running' && typeof end === 'number' && Number.isFinite(end);
    });
  // Read once, when first asked of the loaded document: one without script cannot gain any, and
  // one with script stays watched. A huge page is walked once, not at every look.
  const noScriptSlot = Symbol.for(`${key}.no-script`);
  if (!busy && document.readyState === 'complete' && !(noScriptSlot in window)) {
    const noScript =
      window.length === 0 &&
      document.querySelector('script, iframe, frame, object, embed, meta[http-equiv="refresh" i]') === null &&
      !document.evaluate('boolean(//@*[starts-with(name(), "on")])', document, null, XPathResult.BOOLEAN_TYPE).booleanValue;
    Object.defineProperty(window, noScriptSlot, { value: noScript, configurable: true });
  }
  const scriptless = (window as unknown as Record<symbol, boolean | undefined>)[noScriptSlot] === true;
  return { busy, quietFor: performance.now() - record.lastChange, scriptless };
}
