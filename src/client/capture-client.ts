import type { CaptureParams } from '../core/schema/capture-schema.js';
import type { BulkStatus, CaptureJobStatus } from '../http/async-captures-port.js';
import type { ContentAnswers } from '../core/page-content.js';
import { canonicalQuery } from '../access/link-canonical.js';
import { unsignedRenderLink } from '../http/render-link-query.js';
import { apiErrorOf, CaptureApiError } from './api-error.js';
import { pause, retryDelay, type RetryOptions } from './retries.js';
import { hmacHex } from './web-crypto.js';

/**
 * A capture's parameters, typed from the service's one request schema: a misspelt name or a value
 * outside its type or enum does not compile. Uploaded files (`files`) go through multipart, which
 * this client does not send.
 */
export type CaptureRequest = Partial<Omit<CaptureParams, 'files' | 'async' | 'response_type'>>;

export interface CaptureClientOptions {
  /** Where the service answers, with any path it is mounted under. @example 'https://shots.example.com' */
  baseUrl: string;
  /** Sent as `X-API-Key`. */
  apiKey?: string;
  /** The service's `basePath`. @default '/api' */
  basePath?: string;
  /** For `renderLink`: the key's public id (`ce_...`) and its signing secret. */
  linkKey?: string;
  signingSecret?: string;
  /** Retries of 429 and 503 answers. */
  retries?: RetryOptions;
  /** A `fetch` of your own (a proxy agent, a test double). @default globalThis.fetch */
  fetch?: typeof fetch;
}

export interface RequestOptions {
  /** Aborts the request, and any wait before a retry. */
  signal?: AbortSignal;
}

/** A captured file and what the service said about it. */
export interface CapturedFile {
  bytes: Uint8Array;
  contentType: string;
  /** `X-Capture-Id`. */
  captureId: string | undefined;
  /** Every header: rate limit, quota, cache, timings. */
  headers: Headers;
}

/** `response_type=json`: where the capture is stored and what it reports. */
export interface CaptureJson {
  /** Where the stored file is served, relative to the service (`/api/files/...`). */
  url: string;
  /** The same, absolute: `url` resolved against the client's `baseUrl`, ready to fetch or hand on. */
  absoluteUrl: string;
  size: number;
  format: string;
  [field: string]: unknown;
}

/** An asynchronous capture just queued. */
export interface QueuedCapture {
  id: string;
  status: 'queued';
  status_url: string;
}

/** A batch: `defaults` for every item, items as URLs or parameter sets (with an `id` of yours). */
export interface BulkRequest {
  defaults?: CaptureRequest;
  items: Array<string | (CaptureRequest & { url: string; id?: string })>;
  webhook_url?: string;
}

export interface QueuedBulk {
  id: string;
  status: 'queued';
  status_url: string;
  items: number;
}

export interface WaitOptions extends RequestOptions {
  /** First poll's delay; each next one is half again as long, up to `maxIntervalMs`. @default 250 */
  intervalMs?: number;
  maxIntervalMs?: number;
  /** Gives up (a CaptureApiError `WAIT_TIMEOUT`) after this long. @default 300000 */
  timeoutMs?: number;
}

const NODE_FS = 'node:fs/promises';

const RETRY_DEFAULTS: Required<RetryOptions> = { tries: 4, baseMs: 500, maxWaitMs: 30_000 };

/**
 * The service's HTTP interface, typed. Uses only `fetch` and Web Crypto: it runs in Node 20,
 * browsers and edge runtimes (`captureToFile` alone needs Node).
 */
export class CaptureClient {
  private readonly origin: string;
  private readonly prefix: string;
  private readonly retries: Required<RetryOptions>;
  private readonly fetcher: typeof fetch;

  constructor(private readonly options: CaptureClientOptions) {
    this.origin = options.baseUrl.replace(/\/+$/, '');
    this.prefix = `${this.origin}${(options.basePath ?? '/api').replace(/\/+$/, '')}/v1`;
    this.retries = { ...RETRY_DEFAULTS, ...options.retries };
    this.fetcher = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** A capture, answered as its file. */
  async capture(params: CaptureRequest, options: RequestOptions = {}): Promise<CapturedFile> {
    const response = await this.send('POST', '/capture', { ...params, response_type: 'image' }, options);
    return { bytes: new Uint8Array(await response.arrayBuffer()), contentType: response.headers.get('content-type') ?? '', captureId: response.headers.get('x-capture-id') ?? undefined, headers: response.headers };
  }

  /** A capture written to `path` (Node only). Resolves with what `capture` does, but the bytes. */
  async captureToFile(params: CaptureRequest, path: string, options: RequestOptions = {}): Promise<Omit<CapturedFile, 'bytes'> & { size: number }> {
    const { bytes, ...rest } = await this.capture(params, options);
    // A specifier bundlers leave alone: the rest of the client stays free of Node's modules.
    const { writeFile } = (await import(/* @vite-ignore */ NODE_FS)) as typeof import('node:fs/promises');
    await writeFile(path, bytes);
    return { ...rest, size: bytes.byteLength };
  }

  /** A capture stored by the service, answered as JSON (`url`, `size`, `format`, ...). */
  async captureJson(params: CaptureRequest, options: RequestOptions = {}): Promise<CaptureJson> {
    const answer = (await (await this.send('POST', '/capture', { ...params, response_type: 'json' }, options)).json()) as CaptureJson;
    return { ...answer, absoluteUrl: new URL(answer.url, `${this.origin}/`).href };
  }

  /** What a page says, typed by format: Markdown, HTML, text and the ARIA snapshot as text; links, metadata and scrape as their JSON. */
  async content<F extends keyof ContentAnswers>(format: F, params: Omit<CaptureRequest, 'format'>, options: RequestOptions = {}): Promise<ContentAnswers[F]> {
    const { bytes, contentType } = await this.capture({ ...params, format }, options);
    const text = new TextDecoder().decode(bytes);
    return (contentType.startsWith('application/json') ? JSON.parse(text) : text) as ContentAnswers[F];
  }

  /** Queues an asynchronous capture (`webhook_url` to be told when it ends); `waitFor` its id. */
  async captureAsync(params: CaptureRequest, options: RequestOptions = {}): Promise<QueuedCapture> {
    return (await (await this.send('POST', '/capture', { ...params, async: true }, options)).json()) as QueuedCapture;
  }

  /** The status of an asynchronous capture. */
  async status(id: string, options: RequestOptions = {}): Promise<CaptureJobStatus> {
    return (await (await this.send('GET', `/captures/${encodeURIComponent(id)}`, undefined, options)).json()) as CaptureJobStatus;
  }

  /** Polls an asynchronous capture until it has ended, backing off between polls. A failed capture resolves too: its status says why. */
  async waitFor(id: string, options: WaitOptions = {}): Promise<CaptureJobStatus> {
    return this.poll(() => this.status(id, options), (status) => status.status === 'completed' || status.status === 'failed', id, options);
  }

  /** Queues a batch of asynchronous captures. */
  async bulk(request: BulkRequest, options: RequestOptions = {}): Promise<QueuedBulk> {
    return (await (await this.send('POST', '/bulk', request, options)).json()) as QueuedBulk;
  }

  /** A batch's status: counts, and one page of its items. */
  async bulkStatus(id: string, page: { offset?: number; limit?: number } = {}, options: RequestOptions = {}): Promise<BulkStatus> {
    const query = new URLSearchParams(Object.entries(page).map(([name, value]) => [name, String(value)])).toString();
    return (await (await this.send('GET', `/bulk/${encodeURIComponent(id)}${query ? `?${query}` : ''}`, undefined, options)).json()) as BulkStatus;
  }

  /** Polls a batch until every item has ended. */
  async waitForBulk(id: string, options: WaitOptions = {}): Promise<BulkStatus> {
    return this.poll(() => this.bulkStatus(id, { limit: 1 }, options), (status) => status.status === 'completed', id, options);
  }

  /** The secret (`whsec_...`) this key's account's webhooks are signed with: what `verifyWebhook` takes. */
  async webhookSecret(options: RequestOptions = {}): Promise<string> {
    return ((await (await this.send('GET', '/webhook-secret', undefined, options)).json()) as { secret: string }).secret;
  }

  /**
   * A signed render link for an `<img src>`: no API key in it. Needs `linkKey` and `signingSecret`
   * (in the options or here); `expiresIn` seconds, or never.
   */
  async renderLink(params: CaptureRequest & { url: string }, link: { linkKey?: string; signingSecret?: string; expiresIn?: number; expires?: Date } = {}): Promise<string> {
    const key = link.linkKey ?? this.options.linkKey;
    const secret = link.signingSecret ?? this.options.signingSecret;
    if (!key || !secret) throw new TypeError('renderLink needs the key id (linkKey) and its signing secret');
    const unsigned = unsignedRenderLink({ baseUrl: this.origin, basePath: this.options.basePath, key, params: linkParams(params), expiresIn: link.expiresIn, expires: link.expires });
    return unsigned.withSignature(await hmacHex(secret, canonicalQuery(unsigned.pairs)));
  }

  private async poll<T>(read: () => Promise<T>, ended: (status: T) => boolean, id: string, options: WaitOptions): Promise<T> {
    const deadline = Date.now() + (options.timeoutMs ?? 300_000);
    let interval = options.intervalMs ?? 250;
    for (;;) {
      const status = await read();
      if (ended(status)) return status;
      if (Date.now() + interval > deadline) throw new CaptureApiError(0, 'WAIT_TIMEOUT', `${id} had not ended after ${options.timeoutMs ?? 300_000} ms`, { id });
      await pause(interval, options.signal);
      interval = Math.min(options.maxIntervalMs ?? 5_000, Math.round(interval * 1.5));
    }
  }

  /** One request, retried on 429 and 503 as the answer says; any other failure is a CaptureApiError. */
  private async send(method: 'GET' | 'POST', path: string, body: unknown, { signal }: RequestOptions): Promise<Response> {
    const headers: Record<string, string> = {};
    if (this.options.apiKey) headers['X-API-Key'] = this.options.apiKey;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const payload = body === undefined ? undefined : JSON.stringify(body);
    for (let attempt = 0; ; attempt++) {
      const response = await this.fetcher(`${this.prefix}${path}`, { method, headers, body: payload, signal });
      if (response.ok) return response;
      const wait = retryDelay(response, attempt, this.retries);
      const error = await apiErrorOf(response);
      // A spent monthly quota does not come back within any wait worth making.
      if (wait === undefined || error.code === 'QUOTA_EXCEEDED') throw error;
      await pause(wait, signal);
    }
  }
}

/** A link's query values: arrays of actions and the like as the JSON the service parses. */
function linkParams(params: CaptureRequest & { url: string }): { url: string } & Record<string, string | number | boolean | undefined> {
  return Object.fromEntries(Object.entries(params).map(([name, value]) => [name, value === undefined || typeof value !== 'object' ? value : JSON.stringify(value)])) as { url: string } & Record<string, string | number | boolean | undefined>;
}

/** A client of the capture service at `baseUrl`. */
export function createCaptureClient(options: CaptureClientOptions): CaptureClient {
  return new CaptureClient(options);
}
