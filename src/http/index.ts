export { CaptureHttp, createCaptureHttp } from './capture-http.js';
export { toCaptureHttp, setDefaultHttpOptions } from './engine-services.js';
export { HTTP_DEFAULTS, type CaptureHttpOptions } from './http-options.js';
export { routeTable, DEFAULT_BASE_PATH, type RouteTable } from './routes.js';
export { buildOpenApiDocument } from './openapi.js';
export type { HttpRequest, HttpResponse } from './http-types.js';
export type { AnsweredRequest, HttpObserver, ReadinessCheck } from './http-observer.js';
export type { CaptureEngine, CaptureOptions } from '../core/engine.js';
export * from './access/index.js';
