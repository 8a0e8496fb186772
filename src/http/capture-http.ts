import type { CaptureEngine, CaptureOptions } from '../core/engine.js';
import { buildOpenApiDocument } from './openapi.js';
import { mayRead, serveFile } from './serve-file.js';
import { servePlayground } from './playground-route.js';
import { handleCapture } from './capture-route.js';
import { handleRender } from './render-route.js';
import { identify, addressOf, type Caller } from './caller.js';
import { methodNotAllowed, notFound } from './http-errors.js';
import type { HttpRequest, HttpResponse } from './http-types.js';
import { resolveHttpOptions, type CaptureHttpOptions, type ResolvedHttpOptions } from './http-options.js';
import { setQuotaHeaders, setRateHeaders } from './limit-headers.js';
import { fromSearchParams, type ParamBag } from './request-body.js';
import { errorResponse, withJsonFields } from './responses.js';
import type { CaptureError } from '../core/errors/catalogue.js';
import type { RouteTable } from './routes.js';
import type { RouteAnswer } from './http-observer.js';
import type { McpRoute } from './mcp/mcp-route.js';
import { alive, ready } from './health-routes.js';
import { captureStatus, webhookSecret } from './async-capture-routes.js';
import { bulkStatus, handleBulk } from './bulk/bulk-routes.js';
import { contextFromHeaders, inSpan, SpanKind, SpanStatusCode } from '../core/telemetry/tracing.js';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.js';
import { SIGNATURES_DIRECTORY_PATH } from '../core/web-bot-auth.js';

/**
 * The HTTP interface of docs/http-service.md over one engine, independent of any framework: adapters only
 * translate to and from `HttpRequest`/`HttpResponse`. Every response, errors included, carries
 * the limit headers.
 */
export class CaptureHttp {
  readonly routes: RouteTable;
  readonly bodyLimit: number;
  /** Largest `multipart/form-data` body in bytes. */
  readonly uploadLimit: number;
  private readonly options: ResolvedHttpOptions;
  private openApi: string | undefined;
  /** Loaded on the first MCP request: a service nobody asks over MCP never loads its SDK. */
  private mcp: Promise<McpRoute> | undefined;

  constructor(
    readonly engine: CaptureEngine,
    options: CaptureHttpOptions = {},
  ) {
    this.options = resolveHttpOptions(options, { storage: engine.storage, log: engine.options.log, timeoutMs: engine.options.timeoutMs });
    this.routes = this.options.routes;
    this.bodyLimit = this.options.bodyLimit;
    this.uploadLimit = this.options.uploadLimits.totalBytes;
  }

  /** `GET /healthz`'s answer, for an app that serves health under its own routes. */
  alive(): HttpResponse {
    return alive();
  }

  /**
   * `GET /readyz`'s answer: the browser connected and the `readiness` checks passing, else 503
   * naming what fails. `details` adds the reasons and the pressure readings: never on a public port.
   */
  ready(details = false): Promise<HttpResponse> {
    return ready(this.engine.stats, this.options.readiness ?? [], this.options.pressure, details);
  }

  /** Largest POST body an adapter reads for `url` (a batch may be larger than a capture's parameters). */
  bodyLimitFor(url: string): number {
    return new URL(url, 'http://localhost').pathname === this.routes.bulk ? this.options.bulkBodyLimit : this.bodyLimit;
  }

  /** Whether a path belongs to this interface; adapters pass every other path on untouched. */
  ownsPath(pathname: string): boolean {
    return this.routes.owns(pathname) || (this.engine.webBotAuth !== undefined && pathname === SIGNATURES_DIRECTORY_PATH);
  }

  /** `options.signal` is read only when a capture starts, so adapters may make it lazily. */
  async handle(request: HttpRequest, options: CaptureOptions = {}): Promise<HttpResponse> {
    const started = performance.now();
    const target = new URL(request.url, 'http://localhost');
    const requestId = requestIdOf(request);
    const { response: answered, ...learnt } = await this.tracedRoute(request, target, options);
    // Every error body names the request, whichever route refused it.
    const response = answered.code !== undefined && answered.status >= 400 ? withJsonFields(answered, { request_id: requestId }) : answered;
    response.headers[REQUEST_ID_HEADER] = requestId;
    // The unread rest of an oversized body would be taken for the next request on this connection.
    if (request.bodyTooLarge || (request.stream && !request.stream.readableEnded)) response.headers.Connection = 'close';
    const seconds = (performance.now() - started) / 1000;
    const { captureId, keyId, cache } = learnt;
    this.options.log.info({ method: request.method, path: target.pathname, status: response.status, ms: Math.round(seconds * 1000), code: response.code, requestId, captureId, keyId, cache }, 'request');
    this.options.observer?.answered({ ...learnt, status: response.status, code: response.code, seconds });
    return response;
  }

  /** A span per request, continuing the caller's W3C `traceparent`; health probes stay out of traces. */
  private tracedRoute(request: HttpRequest, target: URL, options: CaptureOptions): Promise<RouteAnswer> {
    const { health } = this.routes;
    if (health && (target.pathname === health.alive || target.pathname === health.ready)) return this.route(request, target, options);
    const method = request.method.toUpperCase();
    return inSpan(
      method,
      { 'http.request.method': method, 'url.path': target.pathname, 'http.request.header.x-request-id': [requestIdOf(request)] },
      async (span) => {
        const answer = await this.route(request, target, options);
        // Named by route (capture, status, file, ...), not by path: ids and keys would make every name unique.
        span.updateName(`${method} ${answer.route}`);
        span.setAttributes({ 'http.route': answer.route, 'http.response.status_code': answer.response.status, ...(answer.captureId ? { 'capture.id': answer.captureId } : {}) });
        if (answer.response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: answer.response.code });
        return answer;
      },
      { kind: SpanKind.SERVER, parent: contextFromHeaders(request.headers) },
    );
  }

  private async route(request: HttpRequest, target: URL, options: CaptureOptions): Promise<RouteAnswer> {
    const method = request.method.toUpperCase();
    const query = fromSearchParams(target.searchParams);
    const { routes } = this;
    const reading = method === 'GET' || method === 'HEAD';
    // Parsed, `/api/files/../v1/capture` is the capture, though the app's router, its middleware and
    // any proxy in front took it for a file: the path decides as it was sent.
    const sent = request.url.split(/[?#]/, 1)[0] ?? '';
    if (resolvesAway(sent)) return this.reject('other', request, query, notFound(`No route ${sent}`));
    if (target.pathname === routes.capture) {
      if (method !== 'GET' && method !== 'POST') return this.reject('capture', request, query, methodNotAllowed('GET, POST'));
      return handleCapture(this.engine, this.options, request, query, options);
    }
    if (this.engine.webBotAuth && target.pathname === SIGNATURES_DIRECTORY_PATH) {
      if (!reading) return this.reject('other', request, query, methodNotAllowed('GET, HEAD'));
      // Signed for the authority it was asked at, as the directory draft requires.
      const { body, headers } = await this.engine.webBotAuth.directory(new URL(target.pathname, `http://${String(request.headers.host ?? 'localhost')}`).href);
      return { route: 'other', response: { status: 200, headers, body: method === 'HEAD' ? '' : body } };
    }
    if (target.pathname === routes.mcp) {
      this.mcp ??= import('./mcp/mcp-route.js').then(({ McpRoute }) => new McpRoute(this.engine, this.options));
      return (await this.mcp).handle(request, options);
    }
    if (target.pathname === routes.render) {
      if (!reading) return this.reject('render', request, query, methodNotAllowed('GET, HEAD'));
      return handleRender(this.engine, this.options, request, target.searchParams, options);
    }
    if (routes.health && (target.pathname === routes.health.alive || target.pathname === routes.health.ready)) {
      if (!reading) return this.reject('health', request, query, methodNotAllowed('GET, HEAD'));
      return { route: 'health', response: target.pathname === routes.health.alive ? this.alive() : await this.ready() };
    }
    if (target.pathname === routes.openApi) {
      if (!reading) return this.reject('openapi', request, query, methodNotAllowed('GET, HEAD'));
      return this.withPeekedLimits('openapi', request, query, async () => {
        this.openApi ??= JSON.stringify(buildOpenApiDocument(routes));
        return { status: 200, headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: method === 'HEAD' ? '' : this.openApi };
      });
    }
    if (target.pathname === routes.webhookSecret) {
      if (!reading) return this.reject('webhook-secret', request, query, methodNotAllowed('GET, HEAD'));
      return this.withPeekedLimits('webhook-secret', request, query, (caller) => webhookSecret(this.options, caller));
    }
    if (target.pathname === routes.bulk) {
      if (method !== 'POST') return this.reject('bulk', request, query, methodNotAllowed('POST'));
      return handleBulk(this.engine, this.options, request, query);
    }
    if (target.pathname.startsWith(routes.bulkPrefix)) {
      if (!reading) return this.reject('status', request, query, methodNotAllowed('GET, HEAD'));
      const id = decodedId(target.pathname.slice(routes.bulkPrefix.length));
      return this.withPeekedLimits('status', request, query, (caller) => bulkStatus(this.options, caller, id, query));
    }
    if (target.pathname.startsWith(routes.capturesPrefix)) {
      if (!reading) return this.reject('status', request, query, methodNotAllowed('GET, HEAD'));
      const id = decodedId(target.pathname.slice(routes.capturesPrefix.length));
      return this.withPeekedLimits('status', request, query, (caller) => captureStatus(this.options, caller, id));
    }
    if (target.pathname.startsWith(routes.filesPrefix)) {
      if (!reading) return this.reject('file', request, query, methodNotAllowed('GET, HEAD'));
      const key = target.pathname.slice(routes.filesPrefix.length);
      return this.withPeekedLimits('file', request, query, async (caller) => {
        if (!mayRead(key, caller)) throw notFound('File not found or expired');
        return serveFile(this.options.storage, key, request, method === 'HEAD');
      });
    }
    if (routes.playground && (routes.playground.pages.includes(target.pathname) || target.pathname.startsWith(routes.playground.assetsPrefix))) {
      if (!reading) return this.reject('playground', request, query, methodNotAllowed('GET, HEAD'));
      const ifNoneMatch = request.headers['if-none-match'];
      return servePlayground(routes, target.pathname, method === 'HEAD', typeof ifNoneMatch === 'string' ? ifNoneMatch : undefined).then(
        (response) => ({ route: 'playground', response }),
        (error: unknown) => this.reject('playground', request, query, error as CaptureError),
      );
    }
    return this.reject('other', request, query, notFound(`No route ${target.pathname}`));
  }

  /**
   * Endpoints that read rather than capture show the caller's limits without spending them. The
   * caller is identified once, here, and handed to the route.
   */
  private async withPeekedLimits(route: RouteAnswer['route'], request: HttpRequest, query: ParamBag, respond: (caller: Caller) => Promise<HttpResponse>): Promise<RouteAnswer> {
    const caller = await identify(this.options.keyStore, request, query, query);
    const headers = await this.peekHeaders(caller, request);
    const keyId = caller.kind === 'account' ? caller.record.id : undefined;
    try {
      const response = await respond(caller);
      return { route, keyId, response: { ...response, headers: { ...headers, ...response.headers } } };
    } catch (error) {
      return { route, keyId, response: errorResponse(error, headers, this.options.log) };
    }
  }

  private async reject(route: RouteAnswer['route'], request: HttpRequest, query: ParamBag, error: CaptureError): Promise<RouteAnswer> {
    const caller = await identify(this.options.keyStore, request, query, query);
    return { route, response: errorResponse(error, await this.peekHeaders(caller, request), this.options.log) };
  }

  private async peekHeaders(caller: Caller, request: HttpRequest): Promise<Record<string, string>> {
    const { policy } = this.options;
    const headers: Record<string, string> = {};
    if (caller.kind === 'account') {
      setRateHeaders(headers, await policy.peekAccount(caller.record.id, caller.record.tier));
      setQuotaHeaders(headers, await policy.quota(caller.record.id, caller.record.tier));
    } else {
      setRateHeaders(headers, await policy.peekAddress(addressOf(request)));
    }
    return headers;
  }
}

/** Whether a URL parser would resolve part of a path away: `.` and `..` segments (`%2e` too), or a `\` it reads as `/`. */
function resolvesAway(path: string): boolean {
  return path.includes('\\') || /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i.test(path);
}

/**
 * An id from a path. A bad percent-encoding (`%E0%A4%A`) is no id the service gave: kept as sent, it
 * is looked up like any unknown id and answered 404, after the caller is known.
 */
function decodedId(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The HTTP service of an engine: mount it with an adapter, or call `handle()` from any framework. */
export function createCaptureHttp(engine: CaptureEngine, options: CaptureHttpOptions = {}): CaptureHttp {
  return new CaptureHttp(engine, options);
}
