import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { Pipeline } from './pipeline.js';
import type { CapturePlugin, PluginHost, ResolvedCoreOptions } from './plugin-api.js';
import { isValidatedParams, parseCaptureParams, type CaptureInput, type CaptureParams } from './schema/capture-params.js';
import { resolveCoreOptions, type CoreEngineOptions } from './options.js';
import type { WebBotAuth } from './web-bot-auth.js';
import { DEFAULTS } from './defaults.js';
import { createDeadline, abortable } from './deadline.js';
import { toCaptureError } from './errors/to-capture-error.js';
import { toCaptureResult, type CaptureResult } from './capture-result.js';
import type { PhaseTimings } from './phases.js';
import { corePlugin } from './page/navigation-stages.js';
import { storeStage } from './store-stage.js';
import { runCapture } from './run-capture.js';
import { captureErrors } from './errors/factories.js';
import { isVideoFormat } from './schema/formats.js';
import type { CaptureObserver, ContextPool, EgressGuard, PoolStats } from './ports.js';
import type { CaptureStorage } from './storage.js';
import { documentOf } from './document/capture-document.js';
import { activeContext, inSpan, recordFailure, tracer, type Span } from './telemetry/tracing.js';
import { tellProgress, type ProgressListener } from './progress.js';
import { hasHooks, type CaptureHooks } from './capture-hooks.js';
import { injectedUrls } from './schema/injection-params.js';
import { withDownloads } from './document/downloads.js';
import { fetchedAttachments } from './document/attachment-downloads.js';
import { drawnFrameByFrame } from './video-clock.js';
import { mergedUrls, mergeParts } from './schema/merge-parts.js';
import { runMerge } from './run-merge.js';
import type { VideoClock } from './schema/video-params.js';

/** `beforeNavigation` and `beforeCapture` (see `CaptureHooks`) are the library's only: they cannot travel over HTTP. */
export interface CaptureOptions extends CaptureHooks {
  /** Aborting it cancels the capture, queued or running. */
  signal?: AbortSignal;
  /**
   * Who the capture is for: while captures wait for a browser slot, free slots go round-robin
   * between tenants, so one tenant's burst does not hold up another's capture. The HTTP service
   * and the workers pass the account. @default one tenant for all
   */
  tenant?: string;
  /** Most of this tenant's captures running at once; the others wait their turn. @default no cap but `concurrency` */
  maxConcurrent?: number;
  /**
   * When the engine reuses contexts (`contextReuse`), only captures with the same key ever share
   * a context. @default the tenant, else 'default'
   */
  reuseKey?: string;
  /**
   * Files of an upload on disk, by their path in the document: served from there instead of the
   * `content` of `files` (which then only names them). The HTTP service passes an upload's files so.
   */
  uploads?: ReadonlyMap<string, string>;
  /** Told as the capture waits for a browser, enters each phase, encodes a video's frames, uploads. */
  onProgress?: ProgressListener;
}

/** What a capture makes the page load besides its target: refused addresses are refused before a browser is taken. */
function loadedUrls(params: CaptureParams): string[] {
  return [...injectedUrls(params.script_urls), ...injectedUrls(params.style_urls), ...(params.download_from ?? []).map(({ url }) => url), ...mergedUrls(params)];
}

/**
 * Runs captures through the fixed phases in contexts of its pool. It knows its ports (pool,
 * egress guard, storage) only by their interfaces; `createCaptureEngine` builds the real ones.
 */
export class CaptureEngine {
  readonly options: ResolvedCoreOptions;
  readonly storage: CaptureStorage | undefined;
  /** The identity the page's requests are signed with (Web Bot Auth), when the operator set one. */
  readonly webBotAuth: WebBotAuth | undefined;
  private readonly pipeline = new Pipeline();
  private readonly pool: ContextPool;
  private readonly egress: EgressGuard;
  private readonly observer: CaptureObserver | undefined;
  private readonly videoClocks: readonly VideoClock[];
  /** Temporary files handed to callers and not yet disposed; removed at close. */
  private readonly outstanding = new Set<() => Promise<void>>();
  private closing: Promise<void> | undefined;

  private constructor(options: CoreEngineOptions) {
    this.options = resolveCoreOptions(options);
    this.pool = options.pool;
    this.egress = options.egress;
    this.storage = options.storage;
    this.webBotAuth = options.webBotAuth;
    this.observer = options.observer;
    this.videoClocks = options.videoClocks ?? ['live'];
  }

  /** Registers the core stages and `plugins`, then starts the pool; closes what it made on failure. */
  static async create(options: CoreEngineOptions): Promise<CaptureEngine> {
    const engine = new CaptureEngine(options);
    try {
      const core = [corePlugin(options.egress), storeStage(options.storage, options.fileUrl ?? ((key) => key))];
      for (const plugin of [...core, ...(options.plugins ?? [])]) await engine.use(plugin);
      await engine.pool.start();
    } catch (error) {
      await engine.close();
      throw error;
    }
    return engine;
  }

  /** Registers a plugin: its stages join their phases in registration order. */
  async use(plugin: CapturePlugin): Promise<this> {
    this.pipeline.use(plugin);
    const host: PluginHost = { options: this.options, log: this.options.log };
    await plugin.setup?.(host);
    return this;
  }

  hasPlugin(name: string): boolean {
    return this.pipeline.has(name);
  }

  /**
   * What a capture checks before it waits for a browser, without capturing: the target, a proxy
   * and an `upload_url` against the egress guard. For work queued to run elsewhere (asynchronous
   * captures, batches), so a refusal is the request's answer rather than a failed job.
   */
  async checkAddresses(params: CaptureParams): Promise<void> {
    if (params.url !== undefined) await this.egress.checkTarget(params.url);
    if (params.proxy !== undefined) await this.egress.checkProxy(params.proxy);
    if (params.upload_url !== undefined) await this.egress.checkUpload(params.upload_url);
    for (const url of loadedUrls(params)) await this.egress.checkTarget(url);
  }

  get stats(): PoolStats {
    return this.pool.stats;
  }

  /**
   * Captures a page. `input` takes the parameters of docs/parameters.md, typed or as strings;
   * parameters that `parseCaptureParams` already validated are not parsed again.
   */
  capture(input: CaptureInput | CaptureParams, options: CaptureOptions = {}): Promise<CaptureResult> {
    // One span per capture, active for everything it runs: the wait for a browser, each phase, the upload.
    return inSpan('capture', {}, (span) => this.run(input, options, span));
  }

  private async run(input: CaptureInput | CaptureParams, options: CaptureOptions, span: Span): Promise<CaptureResult> {
    if (this.closing) throw captureErrors.shuttingDown();
    const params = isValidatedParams(input) ? input : parseCaptureParams(input);
    const id = randomBytes(16).toString('base64url');
    // The target's host only (its path and query may hold a caller's tokens); a malformed URL is refused later, by the egress guard.
    const host = params.url !== undefined && URL.canParse(params.url) ? new URL(params.url).hostname : undefined;
    span.setAttributes({ 'capture.id': id, 'capture.format': params.format, ...(host ? { 'server.address': host } : {}) });
    const allowed = this.options.timeoutMs + (isVideoFormat(params.format) ? params.duration * DEFAULTS.videoMsPerSecond : 0);
    if (params.timeout !== undefined && params.timeout > allowed) {
      throw captureErrors.invalidParameter('timeout', `Invalid parameter 'timeout': at most this capture's budget of ${allowed} ms`, `integer 1000..${allowed}`);
    }
    const deadline = createDeadline(params.timeout ?? allowed, options.signal);
    const timings: PhaseTimings = {};
    let asked: number | undefined;
    // The wait for a browser slot, ended when one comes or the capture gives up waiting.
    let waiting: Span | undefined;
    try {
      // Refused addresses answer before anything costly: a queue slot, a browser context, or the
      // conversion of a document (a capture made to fail after it would be heavy work for free).
      const frameByFrame = drawnFrameByFrame(params, this.videoClocks);
      const target = params.url === undefined ? undefined : await abortable(this.egress.checkTarget(params.url), deadline.signal);
      if (target && params.robots_txt === 'respect') await abortable(this.egress.checkRobots(target), deadline.signal);
      for (const url of loadedUrls(params)) await abortable(this.egress.checkTarget(url), deadline.signal);
      const proxy = params.proxy === undefined ? undefined : await abortable(this.egress.checkProxy(params.proxy), deadline.signal);
      const uploadTo = params.upload_url === undefined ? undefined : await abortable(this.egress.checkUpload(params.upload_url), deadline.signal);
      const document = await abortable(withDownloads(params, this.egress, deadline.signal).then((withFiles) => documentOf(withFiles, deadline.signal, options.uploads)), deadline.signal);
      const attachments = await abortable(fetchedAttachments(params, this.egress, deadline.signal), deadline.signal);
      tellProgress(options.onProgress, { phase: 'queue' });
      const waitingSince = (asked = performance.now());
      const captureContext = activeContext();
      waiting = tracer().startSpan('capture.queue', {}, captureContext);
      const outcome = await this.pool.run(
        deadline.signal,
        (lease) => {
          timings.queue = performance.now() - waitingSince;
          waiting?.end();
          waiting = undefined;
          const run = { id, params, document, attachments, deadline, lease, pipeline: this.pipeline, log: this.options.log, observer: this.observer, timings, trace: captureContext, onProgress: options.onProgress, hooks: { beforeNavigation: options.beforeNavigation, beforeCapture: options.beforeCapture } };
          return params.pdf_merge === undefined ? runCapture(run) : runMerge(run, mergeParts(params, parseCaptureParams), this.egress);
        },
        {
          viewport: { width: params.viewport_width, height: params.viewport_height },
          // A hook may leave anything on the context: a capture with one gets a context of its own.
          reuseKey: this.pipeline.leavesContextState(params) || hasHooks(options) ? undefined : (options.reuseKey ?? options.tenant ?? 'default'),
          proxy,
          tenant: options.tenant,
          maxConcurrent: options.maxConcurrent,
          frameByFrame,
        },
      );
      const { path } = outcome.output;
      const remove = async (): Promise<void> => {
        if (path) await rm(path, { force: true });
      };
      this.outstanding.add(remove);
      const result = toCaptureResult(id, outcome, () => this.outstanding.delete(remove));
      if (uploadTo) {
        tellProgress(options.onProgress, { phase: 'upload' });
        // The capture's deadline is over: the upload has its own time, bounded per try, and the caller's signal.
        result.upload = await inSpan('capture.upload', {}, () => this.egress.upload(uploadTo, { stream: () => result.stream(), size: result.size, contentType: result.contentType }, options.signal ?? new AbortController().signal)).catch(
          async (error: unknown) => {
            await result.dispose();
            throw error;
          },
        );
      }
      return result;
    } catch (error) {
      const failure = toCaptureError(deadline.signal.aborted ? deadline.signal.reason : error);
      if (waiting) recordFailure(waiting, failure);
      waiting?.end();
      // How far it got: the wait for a browser (all of it, when none came) and the phases that ran.
      if (asked !== undefined) failure.timings = timings.queue === undefined ? { queue: performance.now() - asked } : { ...timings };
      throw failure;
    } finally {
      deadline.dispose();
    }
  }

  /** Refuses new captures, lets running ones finish, then closes browsers, plugins and temp files. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.pool.close();
      for (const plugin of [...this.pipeline.registered].reverse()) {
        await Promise.resolve(plugin.close?.()).catch((error: unknown) => this.options.log.warn({ plugin: plugin.name, error: String(error) }, 'plugin close failed'));
      }
      await Promise.all([...this.outstanding].map((remove) => remove().catch(() => undefined)));
      await this.egress.close();
    })();
    return this.closing;
  }
}
