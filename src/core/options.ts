import type { CapturePlugin, ResolvedCoreOptions } from './plugin-api.js';
import type { CaptureStorage } from './storage.js';
import type { Logger } from './telemetry/logger.js';
import { consoleLogger } from './telemetry/logger.js';
import { DEFAULTS } from './defaults.js';
import type { CaptureObserver, ContextPool, EgressGuard } from './ports.js';
import type { WebBotAuth } from './web-bot-auth.js';
import type { VideoClock } from './schema/video-params.js';

/** What the core engine is built from: its ports, already made, and the capture settings. */
export interface CoreEngineOptions {
  /** Browser contexts to capture in; the engine starts it and closes it. */
  pool: ContextPool;
  /** Checks targets before any browser work and explains refused connections. */
  egress: EgressGuard;
  /** Where `response_type=json` stores files. Without one, such captures fail. */
  storage?: CaptureStorage;
  /** Where a stored file is served, from its storage key. @default the key itself */
  fileUrl?: (key: string) => string;
  /** Plugins, in the order their stages run within a phase. @default [] */
  plugins?: CapturePlugin[];
  /** Time budget of a still capture in ms; videos get `duration × 2 s` on top. @default 30000 */
  timeoutMs?: number;
  /** Video frame rate. @default 30 */
  fps?: number;
  /** Directory for temporary files (videos being encoded). @default `<tmpdir>/capture-engine` */
  tempDir?: string;
  /** Where log lines go (a pino logger fits). @default JSON lines on stderr */
  log?: Logger;
  /** Told how long each phase of each capture took (metrics). */
  observer?: CaptureObserver;
  /**
   * The clocks the pool can draw videos on, the default first (`video_clock`): `frames` only when it
   * lends a begin-frame browser's contexts for `LeaseWants.frameByFrame`. @default ['live']
   */
  videoClocks?: readonly VideoClock[];
  /** Web Bot Auth's signing identity, whose key directory the HTTP service serves. */
  webBotAuth?: WebBotAuth;
}

export function resolveCoreOptions(options: Omit<CoreEngineOptions, 'pool' | 'egress'>): ResolvedCoreOptions {
  return Object.freeze({
    timeoutMs: positive(options.timeoutMs ?? DEFAULTS.timeoutMs, 'timeoutMs'),
    fps: positive(options.fps ?? DEFAULTS.fps, 'fps'),
    tempDir: options.tempDir ?? DEFAULTS.tempDir(),
    log: options.log ?? consoleLogger(),
  });
}

/** Refuses a non-positive or non-finite number, naming the option. */
export function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`Option '${name}' must be a positive number, got ${value}`);
  return value;
}

/** Refuses a negative, fractional or non-finite count, naming the option. */
export function nonNegative(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 0) throw new TypeError(`Option '${name}' must be a whole number of 0 or more, got ${value}`);
  return value;
}
