import type { CDPSession, Request } from 'playwright-core';
import type { CaptureContext, CapturePlugin } from '../../src/core/plugin-api.js';
import { stateKey } from '../../src/core/capture-state.js';
import { abortable, bestEffort, sleep } from '../../src/core/deadline.js';
import { LAST_CHANGE_KEY, type PageChangeRecord } from '../../src/core/page/page-changes.js';
import { recordWait } from '../../src/core/page/page-wait.js';
import { evaluateInPage } from '../shared/evaluate-in-page.js';

/** How long the page must stay still (no request, no DOM change, no layout shift) to count as settled. */
const QUIET_MS = 50;
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

/**
 * The default wait for a page to look finished, after `wait_until` and before the caller's own
 * waits (`settle=false` turns it off): no request in flight (long polls, streams and beacons aside),
 * no DOM change and no layout shift for a moment, no timer the page set while drawing itself
 * pending (a status box cleared after typesetting), web fonts loaded, the images in the viewport
 * loaded, finite CSS animations and transitions over. Bounded: a page that never stills (a ticking
 * clock drawn by script) is captured as it is once the step's time is up.
 */
export function pageSettle(): CapturePlugin {
  return {
    name: 'page-settle',
    stages: [
      {
        name: 'watch-loads',
        phase: 'prepare',
        leavesContextState: false,
        when: (params) => params.settle && params.scenario === 'static',
        run: watchLoads,
      },
      {
        name: 'settle',
        phase: 'settle',
        leavesContextState: false,
        when: (params) => params.settle && params.scenario === 'static',
        run: async (ctx) => {
          const loads = ctx.state.get(LOADS);
          if (!loads) return;
          const budget = ctx.budget(SETTLE_MAX_MS);
          const started = performance.now();
          let settled = false;
          await bestEffort(async (signal) => void (settled = await settle(ctx.cdp, loads, budget, signal)), budget + 250, ctx.signal);
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

/** Whether the network has been quiet for QUIET_MS: no request the page waits for in flight, none started or ended. */
function networkQuiet(loads: Loads): boolean {
  const now = performance.now();
  for (const started of loads.inflight.values()) if (now - started < LONG_REQUEST_MS) return false;
  return now - loads.lastActivity >= QUIET_MS;
}

/**
 * Watches the page until it is still (in the page) while the network is quiet (here): both at
 * once, so that a page at rest pays one quiet window at most. True when it settled within `budgetMs`.
 */
async function settle(cdp: CDPSession, loads: Loads, budgetMs: number, signal: AbortSignal): Promise<boolean> {
  const endsAt = performance.now() + budgetMs;
  for (;;) {
    const still = await abortable(evaluateInPage(cdp, pageIsStill, { quietMs: QUIET_MS, maxMs: Math.max(0, endsAt - performance.now()), key: LAST_CHANGE_KEY }), signal);
    if (!still) return false;
    if (networkQuiet(loads)) return true;
    // Loads are still going: wait for them, then watch the page again (they may change it).
    while (!networkQuiet(loads)) {
      if (performance.now() >= endsAt) return false;
      await sleep(10, signal);
    }
  }
}

/**
 * In the page: resolves true once nothing in the document has changed for `quietMs` (as recorded
 * under `key` since the document started, or from now on if the record is missing), no timer the
 * page set while drawing itself is pending, fonts are loaded, the images in the viewport are loaded
 * and no finite animation runs; false after `maxMs`.
 */
async function pageIsStill({ quietMs, maxMs, key }: { quietMs: number; maxMs: number; key: string }): Promise<boolean> {
  const started = performance.now();
  const record = (window as unknown as Record<symbol, PageChangeRecord | undefined>)[Symbol.for(key)];
  // The engine's pages carry the record; a page of another pool is watched from now on.
  let observed = started;
  const mutations = record ? undefined : new MutationObserver(() => void (observed = performance.now()));
  mutations?.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  const lastChange = (): number => record?.lastChange ?? observed;
  const inViewport = (element: Element): boolean => {
    const box = element.getBoundingClientRect();
    return box.bottom > 0 && box.right > 0 && box.top < innerHeight && box.left < innerWidth && box.width > 0 && box.height > 0;
  };
  const busy = (): boolean =>
    (record?.timersPending ?? 0) > 0 ||
    document.fonts.status !== 'loaded' ||
    [...document.images].some((image) => !image.complete && image.loading !== 'lazy' && inViewport(image)) ||
    document.getAnimations().some((animation) => {
      const end = animation.effect?.getComputedTiming().endTime;
      return animation.playState === 'running' && typeof end === 'number' && Number.isFinite(end);
    });
  try {
    for (;;) {
      const now = performance.now();
      const quietFor = now - lastChange();
      if (!busy() && quietFor >= quietMs) return true;
      if (now - started >= maxMs) return false;
      await new Promise((resolve) => setTimeout(resolve, Math.max(10, Math.min(quietMs, quietMs - quietFor))));
    }
  } finally {
    mutations?.disconnect();
  }
}
