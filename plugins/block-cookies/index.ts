import type { Disposable } from 'playwright-core';
import { stateKey, type CaptureContext, type CapturePlugin } from '../../src/core/plugin-api.js';
import { bestEffort, sleep } from '../../src/core/deadline.js';
import { isSettled, readConsentStates, STATE_KEY, type FrameConsentState, type SettleTimings } from './autoconsent-state.js';
import type { FallbackInput } from './consent-fallback.js';
import { runFallback, type PageReport } from './run-fallback.js';
import { CONSENT_BUTTON_WORDS, CONSENT_WORDS, KNOWN_CMP_SELECTORS } from './cmp-selectors.js';

export { KNOWN_CMP_SELECTORS } from './cmp-selectors.js';

export interface BlockCookiesOptions {
  /**
   * Longest wait for autoconsent to opt out of a banner it found, in ms; the cosmetic fallback
   * hides whatever is left after it. A page without a banner never waits. @default 1000
   */
  optOutWaitMs?: number;
  /** After autoconsent's first look at the page, how long to listen for a CMP it detects. @default 100 */
  firstPassMs?: number;
  /** How long a page showing a consent UI waits for autoconsent to start at all. @default 250 */
  startMs?: number;
  /** Time the cosmetic fallback may take in all frames together. @default 1000 */
  fallbackBudgetMs?: number;
  /** Extra selectors of consent UIs to hide, for CMPs the built-in list misses. @default [] */
  extraSelectors?: string[];
}

const PLUGIN = 'block-cookies';
/** What the plugin learnt of the page so far, from `inject-autoconsent` to the dismissals. */
const COOKIE_STATE = stateKey<CookieState>(PLUGIN);
const MARK = 'block-cookies';

interface CookieState {
  /** Whether a consent UI was seen on this page, by autoconsent or by the fallback. */
  consentSeen: boolean;
  /** What autoconsent reported when we last looked. */
  autoconsent: FrameConsentState[];
}

/** Where a capture's `BlockCookiesResult` is left for later stages (a test's inspector, an app's plugin). */
export const BLOCK_COOKIES_RESULT = stateKey<BlockCookiesResult>('block-cookies:result');

/** What block_cookies did on one capture, in `ctx.state.get(BLOCK_COOKIES_RESULT)`. */
export interface BlockCookiesResult {
  /** Frames where autoconsent found a CMP's popup, and whether it opted out in time. */
  autoconsent: { cmp: string; url: string; optedOut: boolean }[];
  fallback: Omit<PageReport, 'autoconsent' | 'held'>;
}

/** The defaults of `BlockCookiesOptions` (and the grace a popup gets once autoconsent saw it). */
export const BLOCK_COOKIES_DEFAULTS = Object.freeze({ optOutWaitMs: 1000, startMs: 250, firstPassMs: 100, popupGraceMs: 300, fallbackBudgetMs: 1000 });

/**
 * `block_cookies`: dismisses cookie banners and privacy notices the way a person would want the
 * page: autoconsent opts out where its rules know the CMP (in every frame), then a cosmetic
 * fallback hides what is left and removes the backdrop and scroll lock a dialog leaves.
 */
export function blockCookies(options: BlockCookiesOptions = {}): CapturePlugin {
  const optOutWaitMs = options.optOutWaitMs ?? BLOCK_COOKIES_DEFAULTS.optOutWaitMs;
  const waits: SettleTimings = {
    startMs: options.startMs ?? BLOCK_COOKIES_DEFAULTS.startMs,
    firstPassMs: options.firstPassMs ?? BLOCK_COOKIES_DEFAULTS.firstPassMs,
    popupGraceMs: BLOCK_COOKIES_DEFAULTS.popupGraceMs,
  };
  const fallbackBudgetMs = options.fallbackBudgetMs ?? BLOCK_COOKIES_DEFAULTS.fallbackBudgetMs;
  const input = (hold: boolean, consentSeen: boolean): FallbackInput => ({
    selectors: [...KNOWN_CMP_SELECTORS, ...(options.extraSelectors ?? [])],
    consentWords: CONSENT_WORDS,
    buttonWords: CONSENT_BUTTON_WORDS,
    mark: MARK,
    hold,
    consentSeen,
    stateKey: STATE_KEY,
  });

  const record = (ctx: CaptureContext, state: CookieState, report: PageReport): void => {
    if (report.known + report.heuristic + report.consentFrames > 0) state.consentSeen = true;
    const handled = state.autoconsent.filter((frame) => frame.popupAt > 0).map(({ cmp, url, optedOut }) => ({ cmp, url, optedOut }));
    const { known, heuristic, overlays, unlocked, consentFrames } = report;
    ctx.state.set(BLOCK_COOKIES_RESULT, { autoconsent: handled, fallback: { known, heuristic, overlays, unlocked, consentFrames } } satisfies BlockCookiesResult);
  };

  const clean = async (ctx: CaptureContext, state: CookieState): Promise<void> => {
    await bestEffort(
      async () => {
        const report = await runFallback(ctx.page, input(false, state.consentSeen));
        if (report.autoconsent.length > 0) state.autoconsent = report.autoconsent;
        state.consentSeen ||= state.autoconsent.some((frame) => frame.popupAt > 0);
        record(ctx, state, report);
      },
      ctx.budget(fallbackBudgetMs),
      ctx.signal,
    );
  };

  return {
    name: PLUGIN,
    stages: [
      {
        name: 'inject-autoconsent',
        phase: 'prepare',
        leavesContextState: true,
        when: (params) => params.block_cookies,
        run: async (ctx) => {
          // An init script runs in every frame, iframes included, before the page's own scripts.
          // autoconsent's rules load with the first capture that asks for them.
          const { autoconsentInitScript } = await import('./autoconsent-script.js');
          const script: Disposable = await ctx.page.addInitScript({ content: autoconsentInitScript(ctx.target) });
          // Not awaited: commands to a page run in order, so a page used again would see it gone
          // before anything else, and the capture does not wait a round trip for a closing page.
          ctx.defer(() => void script.dispose().catch(() => undefined));
          ctx.state.set(COOKIE_STATE, { consentSeen: false, autoconsent: [] });
        },
      },
      {
        name: 'dismiss',
        phase: 'settle',
        leavesContextState: false,
        when: (params) => params.block_cookies,
        run: async (ctx) => {
          const state = ctx.state.get(COOKIE_STATE);
          if (!state) return;
          // One look per frame. A page that shows nothing consent-like is done with it (the look
          // installed the stylesheet for CMPs that come later): it never waits for autoconsent.
          let look: PageReport | undefined;
          await bestEffort(async () => {
            look = await runFallback(ctx.page, input(true, false));
          }, ctx.budget(fallbackBudgetMs), ctx.signal);
          if (!look) {
            // The look ran out of time (a heavy page, a busy machine): clean without waiting.
            await clean(ctx, state);
            return;
          }
          state.autoconsent = look.autoconsent;
          const detected = state.autoconsent.some((frame) => frame.detectedAt > 0);
          if (!look.held && !detected) {
            record(ctx, state, look);
            return;
          }
          state.consentSeen = look.held;
          const since = Date.now();
          await bestEffort(
            async (signal) => {
              while (!isSettled(state.autoconsent, Date.now(), since, waits)) {
                await sleep(25, signal);
                state.autoconsent = await readConsentStates(ctx.page);
              }
            },
            ctx.budget(optOutWaitMs),
            ctx.signal,
          );
          await clean(ctx, state);
        },
      },
      {
        // A banner that arrives during `delay` (tag managers often load CMPs late) is caught here.
        name: 'late-dismiss',
        phase: 'capture',
        leavesContextState: false,
        when: (params) => params.block_cookies && params.delay > 0,
        run: async (ctx) => {
          const state = ctx.state.get(COOKIE_STATE);
          if (state) await clean(ctx, state);
        },
      },
    ],
  };
}
