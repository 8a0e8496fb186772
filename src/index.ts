// The library's entry point: the composition root and every public name, by layer.
export { createCaptureEngine } from './create-capture-engine.js';
export type { CaptureEngineOptions } from './engine-options.js';

// Core: the engine, its parameters, errors, plugin interfaces, ports.
export { CaptureEngine, type CaptureOptions } from './core/engine.js';
export type { CoreEngineOptions, ResolvedCoreOptions } from './core/options.js';
export { DEFAULTS } from './core/defaults.js';
export type { CaptureResult } from './core/capture-result.js';
export { CaptureError, ERROR_CATALOGUE, isCaptureError, statusOf, type ErrorCode, type ErrorDetails } from './core/errors.js';
export { captureErrors } from './core/error-factories.js';
export { CaptureParamsSchema, captureParamsJsonSchema, parseCaptureParams, type CaptureParams, type CaptureInput } from './core/schema.js';
export { FORMATS, IMAGE_FORMATS, VIDEO_FORMATS, isVideoFormat, type CaptureFormat } from './core/formats.js';
export { PHASES, type Phase, type Stage, type CapturePlugin, type CaptureContext, type PluginHost, type ImageArtifact, type FrameStream, type EncodedOutput } from './core/types.js';
export type { ContextPool, BrowserLease, EgressGuard, PoolStats, PreparedContext, CaptureObserver } from './core/ports.js';
export { consoleLogger, silentLogger, type Logger } from './core/logger.js';
export type { CaptureStorage, StoredFile } from './core/storage.js';

// Edges the engine is built from.
export { findChromium } from './browser/chromium-path.js';
export { BrowserPool, type BrowserPoolOptions } from './browser/pool.js';
export { createCaptureEgress, type CaptureEgressOptions } from './egress/capture-egress.js';
export { createFsStorage, type FsStorageOptions } from './storage/fs-storage.js';

// The HTTP service and its access control.
export {
  CaptureHttp,
  createCaptureHttp,
  HTTP_DEFAULTS,
  routeTable,
  buildOpenApiDocument,
  createPolicy,
  memoryLimiterStore,
  redisLimiterStore,
  createMemoryKeyStore,
  DEFAULT_TIERS,
  TIER_NAMES,
  type CaptureHttpOptions,
  type RouteTable,
  type HttpRequest,
  type HttpResponse,
  type Policy,
  type LimiterStore,
  type LimiterOptions,
  type TierName,
  type TierLimits,
  type KeyStore,
  type ApiKeyRecord,
  type MemoryKeyStore,
} from './http/index.js';
export type { AnsweredRequest, HttpObserver, ReadinessCheck, AsyncCaptures, AsyncCaptureRequest, CaptureJobState, CaptureJobStatus } from './http/index.js';
export { createNodeListener } from '../adapters/node-bridge.js';

// Operations: Prometheus metrics.
export { createCaptureMetrics, startMetricsServer, type CaptureMetrics } from './ops/index.js';
