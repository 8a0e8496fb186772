import path from 'node:path';
import type { PlaywrightBlocker } from '@ghostery/adblocker-playwright';
import { BLOCK_ADS_DEFAULTS } from './defaults.js';
import { stateKey, type CaptureContext, type CapturePlugin } from '../../src/core/plugin-api.js';
import type { Logger } from '../../src/core/telemetry/logger.js';
import { abortable, bestEffort } from '../../src/core/deadline.js';
import type { EngineSource, PrebuiltEngine } from './engine-cache.js';
import type { PageBlocking } from './page-blocking.js';
import { findDefaultLists } from './filter-lists.js';
import type { CaptureParams } from '../../src/core/schema/capture-params.js';

export { findDefaultLists } from './filter-lists.js';
export type { PrebuiltEngine } from './engine-cache.js';

export interface BlockAdsOptions {
  /**
   * Filter lists: file paths or http(s) URLs (downloaded, cached in `cacheDir`).
   * @default EasyList and EasyPrivacy from Debian's `webext-ublock-origin-chromium`
   * @example ['https://easylist.to/easylist/easylist.txt', '/etc/capture/extra-filters.txt']
   */
  lists?: string[];
  /** Use Ghostery's prebuilt engine instead of lists (needs the network once). @default undefined */
  prebuilt?: PrebuiltEngine;
  /** Where the serialized engine and downloaded lists live. @default `<tempDir>/adblock` */
  cacheDir?: string;
  /** Downloaded lists are refreshed when older than this. @default 86400000 (24 h) */
  maxListAgeMs?: number;
  /** Used for list URLs and prebuilt engines. @default globalThis.fetch */
  fetch?: typeof globalThis.fetch;
  /** Time the last cosmetic pass may take before the capture goes on without it. @default 1000 */
  cosmeticPassBudgetMs?: number;
  /**
   * `block_trackers`: tracker lists (files or URLs), without ad lists.
   * @default EasyPrivacy from Debian's `webext-ublock-origin-chromium`
   */
  trackerLists?: string[];
}

/** What sets one blocking plugin apart: its name, when it runs and which lists it loads. */
interface ListBlocking {
  name: string;
  /** What the operator's log calls it when its lists cannot be loaded. */
  what: string;
  when: (params: CaptureParams) => boolean;
  lists: string[] | undefined;
  prebuilt: PrebuiltEngine | undefined;
  /** Under the cache directory: each engine keeps only its own latest serialized copy. */
  cacheSubdir: string;
}

/**
 * `block_ads`: network blocking and cosmetic filtering with Ghostery's engine on EasyList and
 * EasyPrivacy. Routing every request turns Chromium's HTTP cache off for the page, so it is set
 * up only for captures that ask for it. The engine is loaded on first use, from a serialized
 * copy on disk when the lists have not changed.
 */
export function blockAds(options: BlockAdsOptions = {}): CapturePlugin {
  return listBlocking({ name: 'block-ads', what: 'ad blocking', when: (params) => params.block_ads, lists: options.lists, prebuilt: options.prebuilt, cacheSubdir: '.' }, options);
}

/**
 * `block_trackers`: the same engine on EasyPrivacy alone, so analytics and tracking pixels are
 * refused while ads stay. `block_ads` includes it.
 */
export function blockTrackers(options: BlockAdsOptions = {}): CapturePlugin {
  return listBlocking(
    {
      name: 'block-trackers',
      what: 'tracker blocking',
      when: (params) => params.block_trackers && !params.block_ads,
      // Never the ad lists' fallback: no tracker list means no tracker blocking, and a warning.
      lists: options.trackerLists ?? findDefaultLists()?.filter((file) => path.basename(file) === 'easyprivacy.txt') ?? [],
      prebuilt: undefined,
      cacheSubdir: 'trackers',
    },
    options,
  );
}

function listBlocking(spec: ListBlocking, options: BlockAdsOptions): CapturePlugin {
  /** The page's blocking, from `enable` to the cosmetic passes. */
  const BLOCKING = stateKey<PageBlocking>(spec.name);
  let engine: Promise<PlaywrightBlocker> | undefined;
  let source: EngineSource | undefined;
  let log: Logger | undefined;
  const cosmeticBudget = options.cosmeticPassBudgetMs ?? BLOCK_ADS_DEFAULTS.cosmeticPassBudgetMs;

  const blocker = (): Promise<PlaywrightBlocker> => {
    if (!source) throw new Error('block-ads used before setup');
    const loading = source;
    // Ghostery's engine and its modules load with the first capture that blocks, never before.
    engine ??= import('./engine-cache.js').then(({ loadEngine }) => loadEngine(loading)).then(
      (loaded) => {
        log?.info({ origin: loaded.origin, ms: loaded.ms }, `${spec.what} engine ready`);
        return loaded.blocker;
      },
      (error: unknown) => {
        engine = undefined; // the next capture tries again (lists installed, network back)
        throw error;
      },
    );
    return engine;
  };

  const lastPass = async (ctx: CaptureContext): Promise<void> => {
    const blocking = ctx.state.get(BLOCKING);
    if (!blocking) return;
    const { applyCosmeticPass } = await import('./cosmetic-pass.js');
    await bestEffort(() => applyCosmeticPass(blocking.blocker, ctx.page, blocking.blocked), ctx.budget(cosmeticBudget), ctx.signal);
  };

  return {
    name: spec.name,
    setup(host) {
      log = host.log;
      source = {
        lists: spec.lists,
        prebuilt: spec.prebuilt,
        cacheDir: path.join(options.cacheDir ?? path.join(host.options.tempDir, 'adblock'), spec.cacheSubdir),
        maxListAgeMs: options.maxListAgeMs ?? BLOCK_ADS_DEFAULTS.maxListAgeMs,
        fetch: options.fetch ?? globalThis.fetch,
      };
    },
    stages: [
      {
        name: 'enable',
        phase: 'prepare',
        leavesContextState: true,
        when: spec.when,
        run: async (ctx) => {
          let loaded: PlaywrightBlocker;
          try {
            loaded = await abortable(blocker(), ctx.signal);
          } catch (error) {
            if (ctx.signal.aborted) throw error;
            // Ads in a capture are better than no capture; the operator sees why.
            ctx.warn(`${spec.what} unavailable, capturing without it`, error);
            return;
          }
          const { PageBlocking } = await import('./page-blocking.js');
          const blocking = new PageBlocking(ctx.page, loaded);
          ctx.defer(() => blocking.disable());
          await blocking.enable(ctx.target);
          ctx.state.set(BLOCKING, blocking);
        },
      },
      { name: 'cosmetic-pass', phase: 'settle', leavesContextState: false, when: spec.when, run: lastPass },
      // With a `delay`, ads have time to arrive after settle: look once more just before the shot.
      { name: 'late-cosmetic-pass', phase: 'capture', leavesContextState: false, when: (params) => spec.when(params) && params.delay > 0, run: lastPass },
    ],
  };
}

export { BLOCK_ADS_DEFAULTS } from './defaults.js';
