import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { CaptureEngine } from './core/engine.js';
import { DEFAULTS } from './core/defaults.js';
import { consoleLogger } from './core/telemetry/logger.js';
import { nonNegative, positive } from './core/options.js';
import { BrowserPool, type BrowserPoolOptions, type ContextReuseOptions } from './browser/pool.js';
import { PoolWithVideoBrowser } from './browser/video-browser-pool.js';
import type { ContextPool } from './core/ports.js';
import type { VideoClock } from './core/schema/video-params.js';
import { findChromium } from './browser/chromium-path.js';
import { processModelSwitches } from './browser/process-model.js';
import { resolveBrowserIdentity } from './browser/browser-user.js';
import { createCaptureEgress, type CaptureEgress } from './egress/capture-egress.js';
import { createFsStorage } from './storage/fs-storage.js';
import { routeTable } from './http/routes.js';
import { defaultPlugins } from '../plugins/index.js';
import type { CaptureEngineOptions } from './capture-engine-options.js';
import { allowAddressOption } from './egress/allowed-addresses.js';
import { loadWebBotAuth } from './core/web-bot-auth.js';
import { checkUserAgentOptions, engineUserAgent } from './core/identity.js';

/** The allow list `CAPTURE_ALLOW_ADDRESSES` and the `allowAddress` option take, as the guard's function. */
export { allowedAddresses } from './egress/allowed-addresses.js';
/** The ffmpeg the engine's videos use (option, `CAPTURE_FFMPEG_PATH`, PATH), for the CLI's `video --mp4` copy. */
export { findFfmpeg } from '../plugins/encode-video/find-ffmpeg.js';

/**
 * The composition root: a core engine with the real browser pool, egress guard, filesystem
 * storage (unless another is given) and the built-in plugins. Its HTTP service is a value of its
 * own: `createCaptureHttp(engine, options)`.
 */
export async function createCaptureEngine(options: CaptureEngineOptions = {}): Promise<CaptureEngine> {
  const tempDir = options.tempDir ?? DEFAULTS.tempDir();
  const log = options.log ?? consoleLogger();
  const concurrency = positive(options.concurrency ?? DEFAULTS.concurrency, 'concurrency');
  const executablePath = options.connectEndpoint ? (options.executablePath ?? '') : findChromium(options.executablePath);
  const identity = checkUserAgentOptions(options);
  const userAgent = (chromium: string): string => engineUserAgent(chromium, identity);
  await mkdir(tempDir, { recursive: true });
  const egress = await createCaptureEgress({ allowPrivateNetworks: options.allowPrivateNetworks ?? false, resolver: options.resolver, allowAddress: allowAddressOption(options.allowAddress), proxies: options.proxies, urlLists: { allow: options.urlAllowList, deny: options.urlDenyList } });
  const webBotAuth = options.webBotAuth && (await loadWebBotAuth(options.webBotAuth));
  const engine = await CaptureEngine.create({
    ...enginePool(options, egress, { tempDir, log, concurrency, executablePath, userAgent }),
    egress,
    storage:
      options.storage ??
      createFsStorage({
        dir: options.storageDir ?? path.join(tempDir, 'files'),
        lifetimeMs: positive(options.fileLifetimeMs ?? DEFAULTS.fileLifetimeMs, 'fileLifetimeMs'),
      }),
    fileUrl: options.fileUrl ?? routeTable().fileUrl,
    plugins: [
      ...defaultPlugins({
        adBlocking: options.adBlocking,
        cookieBanners: options.cookieBanners,
        maxFullPageHeight: options.maxFullPageHeight === undefined ? undefined : positive(options.maxFullPageHeight, 'maxFullPageHeight'),
        maxFullPageBytes: positive(options.maxFullPageBytes ?? DEFAULTS.maxFullPageBytes, 'maxFullPageBytes'),
        pdfRangePages: positive(options.pdfRangePages ?? DEFAULTS.pdfRangePages, 'pdfRangePages'),
        ffmpegPath: options.ffmpegPath,
        webBotAuth,
        pdfTools: { ghostscriptPath: options.ghostscriptPath, qpdfPath: options.qpdfPath, srgbProfilePath: options.srgbProfilePath },
      }),
      ...(options.plugins ?? []),
    ],
    timeoutMs: options.timeoutMs,
    fps: options.fps,
    tempDir,
    log,
    observer: options.observer,
    webBotAuth,
  });
  return engine;
}

type ResolvedOptions = { tempDir: string; log: CaptureEngine['options']['log']; concurrency: number; executablePath: string; userAgent: (chromium: string) => string };

/**
 * The browser pool, with a video browser beside it for the videos drawn frame by frame (launched on
 * the first: an engine that draws none never starts it), and the clocks it draws on, its default first.
 */
function enginePool(options: CaptureEngineOptions, egress: CaptureEgress, resolved: ResolvedOptions): { pool: ContextPool; videoClocks: VideoClock[] } {
  const clock = options.videoClock ?? (options.connectEndpoint ? 'live' : 'frames');
  if (clock !== 'live' && clock !== 'frames') throw new TypeError(`Option 'videoClock' must be 'live' or 'frames', got ${String(clock)}`);
  const main = browserPool(options, egress, resolved);
  // Its launch switches are the engine's to give: a remote browser has its own.
  if (options.connectEndpoint) {
    if (clock === 'frames') throw new TypeError("Option 'videoClock' 'frames' needs a local browser, not 'connectEndpoint'");
    return { pool: main, videoClocks: ['live'] };
  }
  // Its contexts are opened for each video: a warm or kept one would be drawn for nothing.
  const pool = new PoolWithVideoBrowser(main, browserPool(options, egress, resolved, { beginFrameControl: true, warmContexts: 0, contextReuse: undefined }));
  return { pool, videoClocks: clock === 'frames' ? ['frames', 'live'] : ['live', 'frames'] };
}

function browserPool(options: CaptureEngineOptions, egress: CaptureEgress, resolved: ResolvedOptions, overrides: Partial<BrowserPoolOptions> = {}): BrowserPool {
  const rendererMemoryMb = positive(options.rendererMemoryMb ?? DEFAULTS.rendererMemoryMb, 'rendererMemoryMb');
  return new BrowserPool({
    executablePath: resolved.executablePath,
    args: [...processModelSwitches(options.browserProcessModel, options.connectEndpoint !== undefined), ...(options.browserArgs ?? [])],
    connectEndpoint: options.connectEndpoint,
    tempDir: resolved.tempDir,
    prepareProfile: egress.prepareProfile,
    prepareContext: egress.prepareContext,
    concurrency: resolved.concurrency,
    maxQueue: options.maxQueue ?? DEFAULTS.maxQueue,
    warmContexts: nonNegative(options.warmContexts ?? DEFAULTS.warmContexts, 'warmContexts'),
    warmIdleMs: nonNegative(options.warmIdleMs ?? DEFAULTS.warmIdleMs, 'warmIdleMs'),
    recycleAfter: options.recycleAfter ?? DEFAULTS.recycleAfter,
    contextReuse: contextReuseOptions(options.contextReuse),
    identity: options.connectEndpoint ? { sandbox: true } : resolveBrowserIdentity({ user: options.browserUser, sandbox: options.sandbox }),
    rendererHeapMb: Math.floor(rendererMemoryMb / 2),
    // A remote browser's processes are not on this machine.
    watchdog: options.connectEndpoint
      ? undefined
      : {
          rendererMemoryBytes: rendererMemoryMb * 2 ** 20,
          browserMemoryBytes: positive(options.browserMemoryMb ?? DEFAULTS.browserMemoryMb, 'browserMemoryMb') * 2 ** 20,
          intervalMs: DEFAULTS.watchdogIntervalMs,
        },
    log: resolved.log,
    userAgent: resolved.userAgent,
    ...overrides,
  });
}

function contextReuseOptions(option: CaptureEngineOptions['contextReuse']): ContextReuseOptions | undefined {
  if (!option) return undefined;
  const { maxUses, idleMs } = option === true ? {} : option;
  return {
    maxUses: positive(maxUses ?? DEFAULTS.contextReuseMaxUses, 'contextReuse.maxUses'),
    idleMs: positive(idleMs ?? DEFAULTS.contextReuseIdleMs, 'contextReuse.idleMs'),
  };
}
