import type { CapturePlugin } from './core/plugin-api.js';
import type { CaptureStorage } from './core/storage.js';
import type { Logger } from './core/telemetry/logger.js';
import type { CaptureObserver } from './core/ports.js';
import type { Resolver } from './egress/resolver.js';
import type { BlockAdsOptions, BlockCookiesOptions } from '../plugins/index.js';
import type { WebBotAuthOptions } from './core/web-bot-auth.js';
import type { BrowserProcessModel } from './browser/process-model.js';

/**
 * Every option of `createCaptureEngine`. All are optional; defaults live in `DEFAULTS`
 * (src/core/defaults.ts). The HTTP service's options (keys, tiers, limits, routes) go to
 * `createCaptureHttp(engine, options)`.
 */
export interface CaptureEngineOptions {
  /** Chromium executable. @default option → `CAPTURE_CHROMIUM_PATH` → Debian's headless shell → Playwright's Chromium → `/usr/bin/chromium` */
  executablePath?: string;
  /** Extra Chromium flags. @default [] */
  browserArgs?: string[];
  /**
   * Where Chromium runs its network and GPU services: `isolated`, a process each; `network-in-browser`,
   * the network service inside the browser process (about 70 MiB RSS fewer); `compact`, both inside
   * (about 140 MiB fewer). On Linux neither service is sandboxed, so a process apart contains a crash
   * but confines nothing (docs/configuration.md, "Where Chromium runs its services"). Models other
   * than `isolated` need a local browser.
   * @default 'network-in-browser' on Linux, else 'isolated' (env CAPTURE_BROWSER_PROCESS_MODEL)
   */
  browserProcessModel?: BrowserProcessModel;
  /**
   * The User-Agent the browser sends when a capture names none (a capture's `user_agent` wins).
   * @default Chromium's own, then `capture-engine/<version>`, then `(+operatorUrl)` (docs/bot-walls.md); env CAPTURE_USER_AGENT
   */
  userAgent?: string;
  /** Where a site learns who runs this service and how to reach them: appended to the default User-Agent as `(+url)`. @default env CAPTURE_OPERATOR_URL */
  operatorUrl?: string;
  /** Use a remote browser instead of launching one. @example 'ws://browsers.internal:3000/playwright' */
  connectEndpoint?: string;
  /** Captures running at once. @default 2 × the machine's cores */
  concurrency?: number;
  /** Captures waiting before new ones get `503 SERVICE_BUSY`. @default 32 */
  maxQueue?: number;
  /**
   * Browser contexts opened ahead of time, so a capture at rest does not wait for one (each holds a
   * renderer). Latency-first deployments give `concurrency` and `warmIdleMs: 0`. @default 1
   */
  warmContexts?: number;
  /** After this long without a capture (ms), the warm contexts are closed until the next one; 0 keeps them. @default 10000 */
  warmIdleMs?: number;
  /** Relaunch Chromium after this many captures (0 = never). @default 1000 */
  recycleAfter?: number;
  /**
   * Run Chromium as this user (name or uid), with its sandbox on. Only as root, where it is the
   * default: Chromium cannot sandbox itself as root. @default `CAPTURE_BROWSER_USER`, else `capture-browser` (made by `npm run setup`), else `nobody`
   */
  browserUser?: string;
  /** Chromium's own sandbox (seccomp, namespaces). Turn it off only where the platform cannot run it. @default true (`CAPTURE_BROWSER_SANDBOX=false` turns it off) */
  sandbox?: boolean;
  /** A renderer holding more resident memory (MB) is killed and its capture fails; V8's heap per renderer is capped at half. @default 2048 */
  rendererMemoryMb?: number;
  /** A browser whose processes hold more memory (MB) is recycled once its running captures end. @default 4096 */
  browserMemoryMb?: number;
  /**
   * For single-tenant deployments: keep a capture's browser context for the next capture of the
   * same account (`reuseKey`), cleared in between, instead of a fresh context each time. Off by
   * default: a kept context shares its HTTP cache and its tab's history between the account's
   * captures (docs/library.md, "Reusing contexts"). `true` takes the defaults.
   * @default false
   */
  contextReuse?: boolean | { maxUses?: number; idleMs?: number };
  /** Time budget of a still capture in ms; videos get `duration × 2 s` on top. @default 30000 */
  timeoutMs?: number;
  /** Video frame rate. @default 30 */
  fps?: number;
  /** Tallest full-page image in px; taller pages are cut there and flagged. @default what `maxFullPageBytes` allows at the width */
  maxFullPageHeight?: number;
  /** Memory one full-page image may take while it is stitched (raw RGBA). @default 1 GiB */
  maxFullPageBytes?: number;
  /**
   * A PDF longer than this is printed this many pages at a time, each part streamed to disk and
   * the parts joined with qpdf: Chromium's memory while printing grows with the pages of one print. @default 100
   */
  pdfRangePages?: number;
  /** Allow targets on private, loopback and link-local networks (tests, intranets). @default false */
  allowPrivateNetworks?: boolean;
  /** DNS resolver used by the egress guard. @default the system resolver */
  resolver?: Resolver;
  /**
   * Allows chosen non-public addresses without opening all private networks (an intranet host,
   * a test fixture). Check the port as well as the address: an address alone opens all its
   * services. `CAPTURE_ALLOW_ADDRESSES` takes `10.0.0.5:443`, or `10.0.0.5:*` for every port.
   * @example (address, port) => address === '10.0.0.5' && port === 443
   */
  allowAddress?: ((address: string, port: number) => boolean) | readonly string[];
  /**
   * Only URLs this regular expression matches may be captured or loaded by a page (targets, redirects,
   * every subresource), on top of the address checks, as Gotenberg's `--chromium-allow-list`. RE2
   * syntax (no lookahead, no backreferences), matched anywhere in the URL: anchor it with `^`.
   * @example '^https://([a-z0-9-]+\\.)*example\\.com/' @default env CAPTURE_URL_ALLOW_LIST
   */
  urlAllowList?: string;
  /** URLs this regular expression matches are refused even when the allow list matches them, as Gotenberg's `--chromium-deny-list`. @default env CAPTURE_URL_DENY_LIST */
  urlDenyList?: string;
  /**
   * The operator's proxies, by name: a capture's `proxy=<name>` sends its page's requests through
   * one without the caller seeing its address or credentials; the operator's proxies are dialled
   * without the guard's address check. @example { de: 'http://user:pass@proxy.example:3128' } @default env CAPTURE_PROXIES
   */
  proxies?: Readonly<Record<string, string>>;
  /** Plugins added after the built-in ones. @default [] */
  plugins?: CapturePlugin[];
  /** Where `response_type=json` stores files. @default filesystem storage in `storageDir` */
  storage?: CaptureStorage;
  /** Directory of the default filesystem storage. @default `<tmpdir>/capture-engine/files` */
  storageDir?: string;
  /** The URL `capture()` reports for a stored file. @default `/api/files/<key>`, where the HTTP service serves it under its default `basePath` */
  fileUrl?: (key: string) => string;
  /** Lifetime of stored files in ms. @default 86400000 (24 h) */
  fileLifetimeMs?: number;
  /** Directory for temporary files (videos being encoded). @default `<tmpdir>/capture-engine` */
  tempDir?: string;
  /** ffmpeg executable. @default option → `CAPTURE_FFMPEG_PATH` → `ffmpeg-static` → system `ffmpeg` */
  ffmpegPath?: string;
  /** Ghostscript, for pdf_a. @default option → `CAPTURE_GHOSTSCRIPT_PATH` → `gs` on PATH */
  ghostscriptPath?: string;
  /** qpdf, for pdf_password and pdf_permissions. @default option → `CAPTURE_QPDF_PATH` → `qpdf` on PATH */
  qpdfPath?: string;
  /** sRGB ICC profile of the PDF/A output intent. @default option → `CAPTURE_SRGB_PROFILE` → the `srgb.icc` installed with Ghostscript */
  srgbProfilePath?: string;
  /**
   * How `record` and `scroll` videos are made when the request does not say (`video_clock`): `frames`
   * draws each frame for its own moment, the page's clocks running on the video's, in a second browser
   * launched with begin-frame control on the first such video; `live` records the page with Chromium's
   * screencast as it plays. A request may ask for either, except frames with `connectEndpoint` (issue 53).
   * @default 'frames', or 'live' with `connectEndpoint`
   */
  videoClock?: 'live' | 'frames';
  /** Where log lines go: a pino logger (an app's, `fastify.log`) fits as it is. Keys are never logged. @default JSON lines on stderr */
  log?: Logger;
  /** `block_ads`: filter lists (files or URLs), prebuilt engine, cache. @default EasyList + EasyPrivacy from Debian's webext-ublock-origin-chromium, cached in `<tempDir>/adblock` */
  adBlocking?: BlockAdsOptions;
  /** `block_cookies`: how long to wait for autoconsent, extra CMP selectors. @default see BlockCookiesOptions */
  cookieBanners?: BlockCookiesOptions;
  /** Told how long each phase of each capture took, e.g. `createCaptureMetrics().engineObserver`. */
  observer?: CaptureObserver;
  /**
   * Web Bot Auth: sign every request the page makes (RFC 9421, Ed25519) with this key; the HTTP
   * service serves its directory at `/.well-known/http-message-signatures-directory`. The key is never
   * logged or served. @default option → `CAPTURE_WEB_BOT_AUTH_KEY` and `CAPTURE_WEB_BOT_AUTH_AGENT` → off
   */
  webBotAuth?: WebBotAuthOptions;
}
