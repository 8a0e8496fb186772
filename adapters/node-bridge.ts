import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isMultipart, type CaptureHttp, type CaptureOptions, type HttpRequest, type HttpResponse } from '../src/http/index.js';

/**
 * The one value every adapter takes. Earlier versions also took an engine; that is refused with the
 * way to make the service, not half-mounted.
 */
export function requireCaptureHttp(http: CaptureHttp): CaptureHttp {
  if (typeof (http as Partial<CaptureHttp> | undefined)?.handle !== 'function' || typeof http.ownsPath !== 'function') {
    throw new TypeError('capture-engine adapters take the HTTP service: createCaptureHttp(engine, options)');
  }
  return http;
}

/**
 * What every adapter shares: reading the body within the limit, turning a closed connection into
 * an AbortSignal, and streaming the response with backpressure.
 */
export async function toHttpRequest(http: CaptureHttp, req: IncomingMessage, options: BodyRead = {}): Promise<HttpRequest> {
  const request: HttpRequest = {
    method: req.method ?? 'GET',
    url: options.url ?? req.url ?? '/',
    headers: req.headers,
    remoteAddress: req.socket.remoteAddress,
  };
  if (request.method !== 'POST') return request;
  if (options.bodyTooLarge) return { ...request, bodyTooLarge: true };
  const limits = { bodyLimit: http.bodyLimitFor(request.url), uploadLimit: http.uploadLimit };
  // Uploads stream to the service, which reads them within their own limits.
  if (isMultipart(req.headers) && !req.readableEnded) return declaredLength(req) > limits.uploadLimit ? { ...request, bodyTooLarge: true } : { ...request, stream: req };
  if (declaredLength(req) > limits.bodyLimit) return { ...request, bodyTooLarge: true };
  // A framework's body parser may have read the body already; use what it made of it (the stream is empty now).
  if (req.readableEnded && options.parsedBody !== undefined) return { ...request, body: fromParsedBody(options.parsedBody) };
  const body = await readBody(req, limits.bodyLimit);
  return body === 'too-large' ? { ...request, bodyTooLarge: true } : { ...request, body };
}

function declaredLength(req: IncomingMessage): number {
  const declared = Number(req.headers['content-length']);
  return Number.isFinite(declared) ? declared : 0;
}

/**
 * A body as a framework's parser left it, as the service reads bodies: an object as it is, bytes or
 * text as bytes (`express.raw()`, `express.text()`), any other JSON value as JSON, so that it is
 * refused as the service refuses it unparsed rather than taken for an empty body. Of an array only
 * that it is one matters, and it may be nested too deep to write out again.
 */
function fromParsedBody(value: unknown): Uint8Array | Record<string, unknown> {
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string') return Buffer.from(value);
  if (isPlainObject(value)) return value;
  return Buffer.from(Array.isArray(value) ? '[]' : (JSON.stringify(value) ?? ''));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

/** Reads at most `limit` bytes; a declared or actual excess stops reading at once. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  if (declaredLength(req) > limit) return 'too-large';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return 'too-large';
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** What an adapter knows of a request's body before the bridge reads it. */
export interface BodyRead {
  /** The path and query as the client sent them, when the framework rewrote `req.url`. */
  url?: string;
  /** What the framework's own body parser made of the body, if one ran. */
  parsedBody?: unknown;
  /** The framework's body parser found the body over its own limit. */
  bodyTooLarge?: boolean;
}

/**
 * Capture options whose `signal` aborts when the client goes away before the response is complete.
 * The signal is made on first read: most requests (401, 429, 400) are answered without a capture,
 * and an AbortController per request is a measurable share of turning one away.
 */
class DisconnectOptions implements CaptureOptions {
  private made: AbortSignal | undefined;

  constructor(private readonly res: ServerResponse) {}

  get signal(): AbortSignal {
    if (this.made) return this.made;
    const controller = new AbortController();
    const res = this.res;
    const abortUnlessDone = (): void => {
      if (!res.writableFinished) controller.abort();
    };
    if (res.closed) abortUnlessDone();
    else res.once('close', abortUnlessDone);
    this.made = controller.signal;
    return this.made;
  }
}

export function abortOnDisconnect(res: ServerResponse): CaptureOptions {
  return new DisconnectOptions(res);
}

/** Most of an unread body drained once its answer is out, and for how long, before the connection is cut. */
const LINGER_BYTES = 64 * 2 ** 20;
const LINGER_MS = 5_000;

/**
 * What follows an answer: `onFinish` once the response is done or the connection is gone, and a
 * body the service answered unread (a keyless upload, one over a limit) drained and dropped, within
 * a bound, before the connection goes. Closing a socket that still has unread bytes sends a reset,
 * which can destroy the answer before the client has read it.
 */
export function afterResponse(req: IncomingMessage, res: ServerResponse, response: HttpResponse): void {
  if (response.onFinish) {
    const finish = response.onFinish;
    res.once('close', () => void finish().catch(() => undefined));
  }
  // Only a body nothing has read from: one a reader left half-way may have left the stream unusable.
  if (response.headers.Connection === 'close' && !req.readableEnded && !req.readableDidRead) lingerOverUnreadBody(req, res, response);
}

/** The connection is kept until the body is drained (then it may serve the next request) or the bound is hit. */
function lingerOverUnreadBody(req: IncomingMessage, res: ServerResponse, response: HttpResponse): void {
  delete response.headers.Connection;
  res.once('finish', () => {
    let drained = 0;
    const cut = (): void => void req.socket.destroy();
    const timer = setTimeout(cut, LINGER_MS).unref();
    req.on('data', (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > LINGER_BYTES) cut();
    });
    req.once('close', () => clearTimeout(timer));
    req.resume();
  });
}

export async function sendResponse(req: IncomingMessage, res: ServerResponse, response: HttpResponse): Promise<void> {
  afterResponse(req, res, response);
  res.writeHead(response.status, response.headers);
  const body = response.body;
  if (body === undefined || typeof body === 'string' || Buffer.isBuffer(body)) {
    res.end(body);
    return;
  }
  await pipeline(body as Readable, res).catch(() => res.destroy());
}

/** The whole exchange for adapters that hand over Node's req/res (Express, plain node:http). */
export async function handleNodeRequest(
  http: CaptureHttp,
  req: IncomingMessage,
  res: ServerResponse,
  options: BodyRead = {},
): Promise<void> {
  const disconnect = abortOnDisconnect(res);
  const request = await toHttpRequest(http, req, options);
  const response = await http.handle(request, disconnect);
  await sendResponse(req, res, response);
}

/**
 * A `(req, res)` listener for `http.createServer`. It answers every path: outside the interface
 * with `404 NOT_FOUND`, in JSON and with the limit headers like any other error.
 */
export function createNodeListener(http: CaptureHttp): (req: IncomingMessage, res: ServerResponse) => void {
  requireCaptureHttp(http);
  return (req, res) => {
    handleNodeRequest(http, req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify({ error: 'Internal error', code: 'INTERNAL_ERROR' }));
    });
  };
}

