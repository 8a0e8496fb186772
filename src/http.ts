import type { CaptureEngine, CaptureOptions } from './engine.js';
import type { HttpRequest, HttpResponse } from './http-types.js';
import { CaptureError } from './errors.js';
import { toCaptureError } from './to-capture-error.js';
import { parseCaptureParams } from './schema.js';
import { fromSearchParams, readBodyParams, type ParamBag } from './request-body.js';
import { buildOpenApiDocument } from './openapi.js';
import { serveFile } from './serve-file.js';
import type { CaptureStorage } from './storage.js';
import { createPolicy, checkTierGates, type LimitState, type Policy } from '../plugins/policy/index.js';
import { createMemoryKeyStore, type ApiKeyRecord, type KeyStore } from '../plugins/auth/index.js';
import type { Logger } from './types.js';

export interface HttpInterfaceOptions {
  basePath: string;
  bodyLimit: number;
  policy: Policy;
  keyStore: KeyStore;
  storage: CaptureStorage;
  log: Logger;
}

/** Who is asking: an account behind a valid key, or an address without one. */
type Caller =
  | { kind: 'account'; record: ApiKeyRecord }
  | { kind: 'anonymous'; address: string; problem: 'missing' | 'invalid' | 'conflicting' };

/**
 * The HTTP interface of SPEC.md, independent of any framework: adapters only translate to and
 * from `HttpRequest`/`HttpResponse`. Every response, errors included, carries the limit headers.
 */
export class HttpInterface {
  private readonly capturePath: string;
  private readonly openApiPath: string;
  private readonly filesPrefix: string;
  private openApi: string | undefined;

  constructor(
    private readonly engine: CaptureEngine,
    private readonly options: HttpInterfaceOptions,
  ) {
    this.capturePath = `${options.basePath}/v1/capture`;
    this.openApiPath = `${options.basePath}/v1/openapi.json`;
    this.filesPrefix = `${options.basePath}/files/`;
  }

  /** Whether a path belongs to this interface; adapters pass every other path on untouched. */
  ownsPath(pathname: string): boolean {
    return pathname === this.capturePath || pathname === this.openApiPath || pathname.startsWith(this.filesPrefix) || pathname.startsWith(`${this.options.basePath}/v1/`);
  }

  /** `options.signal` is read only when a capture starts, so adapters may make it lazily. */
  async handle(request: HttpRequest, options: CaptureOptions = {}): Promise<HttpResponse> {
    const started = Date.now();
    const target = new URL(request.url, 'http://localhost');
    const response = await this.route(request, target, options);
    this.options.log.info('request', { method: request.method, path: target.pathname, status: response.status, ms: Date.now() - started });
    return response;
  }

  private async route(request: HttpRequest, target: URL, options: CaptureOptions): Promise<HttpResponse> {
    const method = request.method.toUpperCase();
    const query = fromSearchParams(target.searchParams);
    if (target.pathname === this.capturePath) {
      if (method !== 'GET' && method !== 'POST') return this.reject(request, query, methodNotAllowed('GET, POST'));
      return this.capture(request, method, query, options);
    }
    if (target.pathname === this.openApiPath) {
      if (method !== 'GET' && method !== 'HEAD') return this.reject(request, query, methodNotAllowed('GET, HEAD'));
      return this.withPeekedLimits(request, query, async () => {
        this.openApi ??= JSON.stringify(buildOpenApiDocument(this.options.basePath));
        return { status: 200, headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: method === 'HEAD' ? '' : this.openApi };
      });
    }
    if (target.pathname.startsWith(this.filesPrefix)) {
      if (method !== 'GET' && method !== 'HEAD') return this.reject(request, query, methodNotAllowed('GET, HEAD'));
      const key = target.pathname.slice(this.filesPrefix.length);
      return this.withPeekedLimits(request, query, () => serveFile(this.options.storage, key, request, method === 'HEAD'));
    }
    return this.reject(request, query, new CaptureError('NOT_FOUND', `No route ${target.pathname}`));
  }

  private async capture(request: HttpRequest, method: string, query: ParamBag, options: CaptureOptions): Promise<HttpResponse> {
    let params: ParamBag = query;
    let bodyError: CaptureError | undefined;
    if (method === 'POST') {
      try {
        params = Object.assign(Object.create(null) as ParamBag, query, readBodyParams(request, this.options.bodyLimit));
      } catch (error) {
        bodyError = toCaptureError(error);
      }
    }
    const caller = await this.identify(request, query, params);
    const headers: Record<string, string> = {};
    const rate = caller.kind === 'account'
      ? await this.options.policy.hitAccount(caller.record.id, caller.record.tier)
      : await this.options.policy.hitAddress(addressOf(request));
    setRateHeaders(headers, rate);
    const account = caller.kind === 'account' ? caller.record : undefined;
    if (account) setQuotaHeaders(headers, await this.options.policy.quota(account.id, account.tier));

    try {
      if (!rate.allowed) throw rateLimitExceeded(rate);
      if (bodyError) throw bodyError;
      if (!account) throw unauthenticated(caller);
      const parsed = parseCaptureParams(params);
      checkTierGates(parsed, account.tier, this.options.policy.tiers);
      const reservation = await this.options.policy.reserve(account.id, account.tier);
      setQuotaHeaders(headers, reservation);
      if (!reservation.allowed) throw quotaExceeded(reservation);
      let result;
      try {
        result = await this.engine.run(parsed, options.signal);
      } catch (error) {
        await this.options.policy.refund(account.id, account.tier);
        setQuotaHeaders(headers, { ...reservation, remaining: reservation.remaining + 1 });
        throw error;
      }
      if (parsed.response_type === 'json') {
        await result.dispose();
        return json(200, headers, { url: result.url, size: result.size, format: result.format.toUpperCase(), status: 'completed', id: result.id });
      }
      Object.assign(headers, {
        'Content-Type': result.contentType,
        'Content-Length': String(result.size),
        'Content-Disposition': `inline; filename="${result.id}.${result.extension}"`,
        'Cache-Control': 'no-store',
        'X-Capture-Id': result.id,
      });
      if (result.clippedFrom !== undefined) headers['X-Capture-Clipped-From'] = String(result.clippedFrom);
      return { status: 200, headers, body: result.data ?? result.stream(), onFinish: () => result.dispose() };
    } catch (error) {
      return this.errorResponse(error, headers);
    }
  }

  /** Finds the caller from the three places a key may travel; two different keys are a conflict. */
  private async identify(request: HttpRequest, query: ParamBag, params: ParamBag): Promise<Caller> {
    const address = addressOf(request);
    const keys = new Set<string>();
    for (const place of [request.headers['x-api-key'], query.api_key, params.api_key]) addKeys(keys, place);
    if (keys.size === 0) return { kind: 'anonymous', address, problem: 'missing' };
    if (keys.size > 1) return { kind: 'anonymous', address, problem: 'conflicting' };
    const record = await this.options.keyStore.lookup(keys.values().next().value as string);
    if (!record || record.revoked) return { kind: 'anonymous', address, problem: 'invalid' };
    return { kind: 'account', record };
  }

  /** Endpoints that read rather than capture show the caller's limits without spending them. */
  private async withPeekedLimits(request: HttpRequest, query: ParamBag, respond: () => Promise<HttpResponse>): Promise<HttpResponse> {
    const headers = await this.peekHeaders(request, query);
    try {
      const response = await respond();
      return { ...response, headers: { ...headers, ...response.headers } };
    } catch (error) {
      return this.errorResponse(error, headers);
    }
  }

  private async reject(request: HttpRequest, query: ParamBag, error: CaptureError): Promise<HttpResponse> {
    return this.errorResponse(error, await this.peekHeaders(request, query));
  }

  private async peekHeaders(request: HttpRequest, query: ParamBag): Promise<Record<string, string>> {
    const caller = await this.identify(request, query, query);
    const headers: Record<string, string> = {};
    if (caller.kind === 'account') {
      setRateHeaders(headers, await this.options.policy.peekAccount(caller.record.id, caller.record.tier));
      setQuotaHeaders(headers, await this.options.policy.quota(caller.record.id, caller.record.tier));
    } else {
      setRateHeaders(headers, await this.options.policy.peekAddress(caller.address));
    }
    return headers;
  }

  private errorResponse(error: unknown, headers: Record<string, string>): HttpResponse {
    const failure = toCaptureError(error);
    if (failure.status >= 500 && failure.code !== 'SERVICE_BUSY') {
      this.options.log.error('capture failed', { code: failure.code, message: failure.message });
    }
    return json(failure.status, Object.assign(headers, failure.headers), failure.toJSON());
  }
}

/** Every non-empty key a place holds; a repeated parameter holds several. */
function addKeys(keys: Set<string>, place: unknown): void {
  for (const key of Array.isArray(place) ? place : [place]) {
    if (typeof key === 'string' && key.length > 0) keys.add(key);
  }
}

function addressOf(request: HttpRequest): string {
  return request.remoteAddress ?? 'unknown';
}

function setRateHeaders(headers: Record<string, string>, state: LimitState): void {
  headers['X-RateLimit-Limit'] = String(state.limit);
  headers['X-RateLimit-Remaining'] = String(state.remaining);
  headers['X-RateLimit-Reset'] = String(state.resetMs);
}

function setQuotaHeaders(headers: Record<string, string>, state: LimitState): void {
  headers['X-Quota-Limit'] = String(state.limit);
  headers['X-Quota-Remaining'] = String(state.remaining);
}

function retryAfter(resetMs: number): string {
  return String(Math.max(1, Math.ceil((resetMs - Date.now()) / 1000)));
}

function rateLimitExceeded(rate: LimitState): CaptureError {
  return new CaptureError('RATE_LIMIT_EXCEEDED', 'Rate limit exceeded', {
    details: { limit: rate.limit, remaining: 0, reset: rate.resetMs },
    headers: { 'Retry-After': retryAfter(rate.resetMs) },
  });
}

function quotaExceeded(quota: LimitState): CaptureError {
  return new CaptureError('QUOTA_EXCEEDED', 'Monthly quota exceeded', {
    details: { limit: quota.limit, remaining: 0, reset: quota.resetMs },
    headers: { 'Retry-After': retryAfter(quota.resetMs) },
  });
}

function unauthenticated(caller: Caller): CaptureError {
  if (caller.kind === 'anonymous' && caller.problem === 'missing') {
    return new CaptureError('MISSING_API_KEY', 'API key required: send it in X-API-Key, the api_key query parameter or the api_key body field');
  }
  if (caller.kind === 'anonymous' && caller.problem === 'conflicting') {
    return new CaptureError('INVALID_API_KEY', 'Different API keys were sent in one request');
  }
  return new CaptureError('INVALID_API_KEY', 'Invalid API key');
}

function methodNotAllowed(allow: string): CaptureError {
  return new CaptureError('METHOD_NOT_ALLOWED', `Method not allowed; use ${allow}`, { headers: { Allow: allow } });
}

/** A JSON answer; `headers` is this request's own object and is completed in place. */
function json(status: number, headers: Record<string, string>, body: unknown): HttpResponse {
  const text = JSON.stringify(body);
  headers['Content-Type'] = 'application/json; charset=utf-8';
  headers['Content-Length'] = String(Buffer.byteLength(text));
  return { status, headers, body: text };
}

export function createHttpInterface(engine: CaptureEngine, overrides: Partial<HttpInterfaceOptions> & { storage: CaptureStorage }): HttpInterface {
  const options = engine.options;
  const keyStore = overrides.keyStore ?? options.keyStore ?? keyStoreFrom(options.apiKeys ?? []);
  return new HttpInterface(engine, {
    basePath: options.basePath,
    bodyLimit: options.bodyLimit,
    policy: overrides.policy ?? createPolicy({ tiers: options.tiers, store: options.limiterStore }),
    keyStore,
    log: options.log,
    ...overrides,
  });
}

function keyStoreFrom(keys: readonly { key: string; tier: ApiKeyRecord['tier'] }[]): KeyStore {
  const store = createMemoryKeyStore();
  for (const { key, tier } of keys) store.add(key, tier);
  return store;
}
