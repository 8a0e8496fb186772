export { CaptureEngine, createCaptureEngine, type CaptureOptions } from './engine.js';
export type { CaptureEngineOptions, ResolvedEngineOptions } from './options.js';
export type { CaptureResult } from './capture-result.js';
export { CaptureError, ERROR_CATALOGUE, isCaptureError, statusOf, type ErrorCode, type ErrorDetails } from './errors.js';
export {
  CaptureParamsSchema,
  captureParamsJsonSchema,
  parseCaptureParams,
  IMAGE_FORMATS,
  VIDEO_FORMATS,
  type CaptureParams,
  type CaptureInput,
  type CaptureFormat,
} from './schema.js';
export { buildOpenApiDocument } from './openapi.js';
export { PHASES, type Phase, type Stage, type CapturePlugin, type CaptureContext, type PluginHost, type Logger, type ImageArtifact, type FrameStream, type EncodedOutput } from './types.js';
export type { HttpRequest, HttpResponse } from './http-types.js';
export type { CaptureStorage, StoredFile } from './storage.js';
export { consoleLogger, silentLogger } from './logger.js';
export { findChromium } from './chromium-path.js';
export { createPolicy, memoryLimiterStore, redisLimiterStore, DEFAULT_TIERS, TIER_NAMES, type Policy, type LimiterStore, type LimiterOptions, type TierName, type TierLimits } from '../plugins/policy/index.js';
export { createMemoryKeyStore, type KeyStore, type ApiKeyRecord, type MemoryKeyStore } from '../plugins/auth/index.js';
export { createFsStorage } from '../plugins/storage-fs/index.js';
export { createNodeListener } from '../adapters/node-bridge.js';
