import type { CaptureEngine } from '../core/engine.js';
import { CaptureHttp, createCaptureHttp } from './capture-http.js';
import type { CaptureHttpOptions } from './http-options.js';

/**
 * For adapters handed an engine rather than its HTTP service (the older way to mount): the
 * service made from the HTTP options the engine was created with, one per engine.
 */
const configured = new WeakMap<CaptureEngine, CaptureHttpOptions>();
const services = new WeakMap<CaptureEngine, CaptureHttp>();

/** Remembers the HTTP options given to `createCaptureEngine`, for adapters handed the engine. */
export function setDefaultHttpOptions(engine: CaptureEngine, options: CaptureHttpOptions): void {
  configured.set(engine, options);
}

/** The HTTP service itself, or the one of an engine (made on first use). */
export function toCaptureHttp(source: CaptureHttp | CaptureEngine): CaptureHttp {
  if (source instanceof CaptureHttp) return source;
  let service = services.get(source);
  if (!service) {
    service = createCaptureHttp(source, configured.get(source));
    services.set(source, service);
  }
  return service;
}
