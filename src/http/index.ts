export { CaptureHttp, createCaptureHttp } from './capture-http.js';
export { HTTP_DEFAULTS, type CaptureHttpOptions } from './http-options.js';
export { routeTable, DEFAULT_BASE_PATH, type RouteTable } from './routes.js';
export { buildOpenApiDocument } from './openapi.js';
export type { HttpRequest, HttpResponse } from './http-types.js';
export type { AnsweredRequest, HttpObserver, ReadinessCheck } from './http-observer.js';
export type { CaptureOptions } from '../core/engine.js';
export type { AsyncCaptures, AsyncCaptureRequest, CaptureJobState, CaptureJobStatus } from './async-captures-port.js';
