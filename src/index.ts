// The library's entry point: the composition root and every public name, by layer.
export { allowedAddresses, createCaptureEngine } from './create-capture-engine.js';
export type { CaptureEngineOptions } from './capture-engine-options.js';

// Core: the engine, its parameters, errors, plugin interfaces, ports.
export { CaptureEngine, type CaptureOptions } from './core/engine.js';
export type { CaptureHooks } from './core/capture-hooks.js';
export type { CaptureProgress, ProgressListener } from './core/progress.js';
export type { CoreEngineOptions } from './core/options.js';
export { DEFAULTS } from './core/defaults.js';
export type { CaptureResult } from './core/capture-result.js';
export type { PhaseTimings } from './core/phases.js';
export type { CaptureDiagnostics, WaitOutcome, Sidecar } from './core/diagnostics.js';
export { CaptureError, ERROR_CATALOGUE, isCaptureError, statusOf, type ErrorCode, type ErrorDetails } from './core/errors/catalogue.js';
export { captureErrors } from './core/errors/factories.js';
export { CaptureParamsSchema, captureParamsJsonSchema, parseCaptureParams, type CaptureParams, type CaptureInput } from './core/schema/capture-params.js';
export { FORMATS, IMAGE_FORMATS, VIDEO_FORMATS, CONTENT_FORMATS, isVideoFormat, isContentFormat, type CaptureFormat, type ContentFormat } from './core/schema/formats.js';
// What a settled page says (Markdown, links, metadata, ARIA...), for anything holding a Playwright page.
export { pageOutput, OUTPUT_LIMITS, type PageOutput, type PageOutputOptions } from '../plugins/extract-content/index.js';
export type { ContentAnswers, LinksAnswer, MetadataAnswer, PageLink, ScrapeAnswer, ScrapedElement, ScrapeRule } from './core/page-content.js';
export { PHASES, stateKey, CaptureState, type StateKey, type ResolvedCoreOptions, type Phase, type Stage, type CapturePlugin, type CaptureContext, type PluginHost, type ImageArtifact, type FrameStream, type EncodedOutput, type StoredOutput } from './core/plugin-api.js';
export type { ContextPool, BrowserLease, EgressGuard, PoolStats, PreparedContext, CaptureObserver } from './core/ports.js';
export { consoleLogger, silentLogger, type Logger } from './core/telemetry/logger.js';
export type { CaptureStorage, StoredFile } from './core/storage.js';

// Edges the engine is built from.
export { findChromium } from './browser/chromium-path.js';
export { BrowserPool, type BrowserPoolOptions } from './browser/pool.js';
export { createCaptureEgress, type CaptureEgressOptions } from './egress/capture-egress.js';
export { createFsStorage, type FsStorageOptions } from './storage/fs-storage.js';

// Access control: keys, tiers, limits and quotas.
export {
  createPolicy,
  memoryLimiterStore,
  redisLimiterStore,
  createMemoryKeyStore,
  createFileKeyStore,
  createRedisKeyStore,
  managedKeyStore,
  operatorSigningSecret,
  operatorLinkCredentials,
  canonicalQuery,
  DEFAULT_TIERS,
  TIER_NAMES,
  type Policy,
  type LimiterStore,
  type LimiterOptions,
  type SlotStore,
  type ReleaseSlot,
  type TierName,
  type TierLimits,
  type ApiKey,
  type KeyStore,
  type ManagedKeyStore,
  type KeyBackend,
  type ManagedKeyOptions,
  type MemoryKeyStoreOptions,
} from './access/index.js';

// The HTTP service.
export { CaptureHttp, createCaptureHttp, HTTP_DEFAULTS, UPLOAD_DEFAULTS, type UploadLimits, routeTable, buildOpenApiDocument, type CaptureHttpOptions, type RouteTable, type HttpRequest, type HttpResponse } from './http/index.js';
export type { AnsweredRequest, HttpObserver, ReadinessCheck, AsyncCaptures, AsyncCaptureRequest, CaptureJobState, CaptureJobStatus, BulkCaptureRequest, BulkItem, BulkItemStatus, BulkPage, BulkStatus } from './http/index.js';
export { memoryIdempotencyStore, redisIdempotencyStore, type IdempotencyStore, type IdempotencyRecord, type StoredAnswer, type RedisIdempotencyClient } from './http/index.js';
export { renderLink, memoryCacheIndex, redisCacheIndex, type RenderLinkOptions, type LinkParamValue, type CacheIndex, type CacheEntry, type RedisCacheClient, type ResultCacheOptions } from './http/index.js';
export { createNodeListener } from '../adapters/node-bridge.js';

// Operations: Prometheus metrics.
export { createCaptureMetrics, startMetricsServer, type CaptureMetrics } from './ops/index.js';
