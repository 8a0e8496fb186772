import os from 'node:os';
import path from 'node:path';
import type { CapturePlugin, Logger } from './types.js';
import type { CaptureStorage } from './storage.js';
import type { KeyStore } from '../plugins/auth/key-store.js';
import type { LimiterStore } from '../plugins/policy/limiter-store.js';
import type { TierName, TierLimits } from '../plugins/policy/tiers.js';
import type { Resolver } from './egress/index.js';
import type { BlockAdsOptions } from '../plugins/block-ads/index.js';
import type { BlockCookiesOptions } from '../plugins/block-cookies/index.js';
import { findChromium } from './chromium-path.js';
import { consoleLogger } from './logger.js';

/** Every option of `createCaptureEngine`. All are optional; defaults live in `resolveOptions`. */
export interface CaptureEngineOptions {
  /** Chromium executable. @default option → `CAPTURE_CHROMIUM_PATH` → Playwright's Chromium → `/usr/bin/chromium` */
  executablePath?: string;
  /** Extra Chromium flags. @default [] */
  browserArgs?: string[];
  /** Use a remote browser instead of launching one. @example 'ws://browsers.internal:3000/playwright' */
  connectEndpoint?: string;
  /** Captures running at once. @default 4 */
  concurrency?: number;
  /** Captures waiting before new ones get `503 SERVICE_BUSY`. @default 32 */
  maxQueue?: number;
  /** Browser contexts opened ahead of time. @default concurrency */
  warmContexts?: number;
  /** Relaunch Chromium after this many captures (0 = never). @default 1000 */
  recycleAfter?: number;
  /** Time budget of a still capture in ms; videos get `duration` on top. @default 30000 */
  timeoutMs?: number;
  /** Video frame rate. @default 30 */
  fps?: number;
  /** Tallest full-page image in px; taller pages are cut there and flagged. @default 32000 */
  maxFullPageHeight?: number;
  /** Allow targets on private, loopback and link-local networks (tests, intranets). @default false */
  allowPrivateNetworks?: boolean;
  /** DNS resolver used by the egress guard. @default the system resolver */
  resolver?: Resolver;
  /**
   * Allows chosen non-public addresses without opening all private networks (an intranet host,
   * a test fixture). @example (address, port) => address === '10.0.0.5' && port === 443
   */
  allowAddress?: (address: string, port: number) => boolean;
  /** Plugins added after the built-in ones. @default [] */
  plugins?: CapturePlugin[];
  /** Where `response_type=json` stores files. @default filesystem storage in `storageDir` */
  storage?: CaptureStorage;
  /** Directory of the default filesystem storage. @default `<tmpdir>/capture-engine/files` */
  storageDir?: string;
  /** Lifetime of stored files in ms. @default 86400000 (24 h) */
  fileLifetimeMs?: number;
  /** Path under which the HTTP interface lives (`{basePath}/v1/capture`, `{basePath}/files/...`). @default '/api' */
  basePath?: string;
  /** Largest POST body in bytes. @default 65536 */
  bodyLimit?: number;
  /** Keys accepted by the in-memory key store. @example [{ key: 'ce_live_...', tier: 'PRO' }] */
  apiKeys?: { key: string; tier: TierName }[];
  /** Key store; replaces the in-memory one. */
  keyStore?: KeyStore;
  /** Per-tier overrides of the defaults of SPEC.md. @example { FREE: { requestsPerMinute: 10 } } */
  tiers?: Partial<Record<TierName, Partial<TierLimits>>>;
  /** Where rate limits and quotas are counted. @default in memory (use the Redis store for several instances) */
  limiterStore?: LimiterStore;
  /** Directory for temporary files (videos being encoded). @default `<tmpdir>/capture-engine` */
  tempDir?: string;
  /** ffmpeg executable. @default option → `CAPTURE_FFMPEG_PATH` → `ffmpeg-static` → system `ffmpeg` */
  ffmpegPath?: string;
  /** Where log lines go. Keys and secrets are never logged. @default JSON lines on stderr */
  log?: Logger;
  /** `block_ads`: filter lists (files or URLs), prebuilt engine, cache. @default EasyList + EasyPrivacy from Debian's webext-ublock-origin-chromium, cached in `<tempDir>/adblock` */
  adBlocking?: BlockAdsOptions;
  /** `block_cookies`: how long to wait for autoconsent, extra CMP selectors. @default see BlockCookiesOptions */
  cookieBanners?: BlockCookiesOptions;
}

export type ResolvedEngineOptions = Required<
  Omit<CaptureEngineOptions, 'connectEndpoint' | 'resolver' | 'allowAddress' | 'storage' | 'keyStore' | 'limiterStore' | 'ffmpegPath' | 'apiKeys' | 'executablePath' | 'adBlocking' | 'cookieBanners'>
> &
  Pick<CaptureEngineOptions, 'connectEndpoint' | 'resolver' | 'allowAddress' | 'storage' | 'keyStore' | 'limiterStore' | 'ffmpegPath' | 'apiKeys' | 'adBlocking' | 'cookieBanners'> & {
    executablePath: string;
  };

/** All defaults in one visible place; the result is frozen. */
export function resolveOptions(options: CaptureEngineOptions = {}): Readonly<ResolvedEngineOptions> {
  const tempDir = options.tempDir ?? path.join(os.tmpdir(), 'capture-engine');
  const concurrency = positive(options.concurrency ?? 4, 'concurrency');
  return Object.freeze({
    ...options,
    executablePath: options.connectEndpoint ? (options.executablePath ?? '') : findChromium(options.executablePath),
    browserArgs: options.browserArgs ?? [],
    concurrency,
    maxQueue: options.maxQueue ?? 32,
    warmContexts: options.warmContexts ?? concurrency,
    recycleAfter: options.recycleAfter ?? 1000,
    timeoutMs: positive(options.timeoutMs ?? 30_000, 'timeoutMs'),
    fps: positive(options.fps ?? 30, 'fps'),
    maxFullPageHeight: positive(options.maxFullPageHeight ?? 32_000, 'maxFullPageHeight'),
    allowPrivateNetworks: options.allowPrivateNetworks ?? false,
    plugins: options.plugins ?? [],
    storageDir: options.storageDir ?? path.join(tempDir, 'files'),
    fileLifetimeMs: positive(options.fileLifetimeMs ?? 24 * 3600_000, 'fileLifetimeMs'),
    basePath: (options.basePath ?? '/api').replace(/\/+$/, ''),
    bodyLimit: positive(options.bodyLimit ?? 64 * 1024, 'bodyLimit'),
    tiers: options.tiers ?? {},
    tempDir,
    log: options.log ?? consoleLogger(),
  });
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`Option '${name}' must be a positive number, got ${value}`);
  return value;
}
