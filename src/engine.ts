import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { BrowserPool, type Lease } from './pool.js';
import { Pipeline } from './pipeline.js';
import { PHASES, type CaptureContext, type CapturePlugin, type PluginHost } from './types.js';
import { parseCaptureParams, isVideoFormat, type CaptureInput, type CaptureParams } from './schema.js';
import { resolveOptions, type CaptureEngineOptions, type ResolvedEngineOptions } from './options.js';
import { createDeadline, abortable, sleep, throwIfAborted } from './deadline.js';
import { CaptureError } from './errors.js';
import { toCaptureError } from './to-capture-error.js';
import { toCaptureResult, type CaptureResult } from './capture-result.js';
import { corePlugin } from './core-stages.js';
import { defaultPlugins } from './default-plugins.js';
import { createEgress, type Egress } from './egress-wiring.js';
import { createHttpInterface, type HttpInterface } from './http.js';
import type { HttpRequest, HttpResponse } from './http-types.js';
import type { CaptureStorage } from './storage.js';
import { createFsStorage } from '../plugins/storage-fs/index.js';

export interface CaptureOptions {
  /** Aborting it cancels the capture, queued or running. */
  signal?: AbortSignal;
}

/**
 * Owns the browser pool and the pipeline. `capture()` runs one capture through the fixed phases;
 * the HTTP layer (`handle()`) adds keys, limits and responses on top of it.
 */
export class CaptureEngine {
  readonly options: Readonly<ResolvedEngineOptions>;
  private readonly pipeline = new Pipeline();
  private readonly pool: BrowserPool;
  private readonly egress: Egress;
  /** Temporary files handed to callers and not yet disposed; removed at close. */
  private readonly outstanding = new Set<() => Promise<void>>();
  private closing: Promise<void> | undefined;
  readonly storage: CaptureStorage;
  private http: HttpInterface | undefined;

  private constructor(options: Readonly<ResolvedEngineOptions>, egress: Egress) {
    this.options = options;
    this.egress = egress;
    this.storage = options.storage ?? createFsStorage({ dir: options.storageDir, lifetimeMs: options.fileLifetimeMs });
    this.pool = new BrowserPool({
      executablePath: options.executablePath,
      args: options.browserArgs,
      concurrency: options.concurrency,
      maxQueue: options.maxQueue,
      warmContexts: options.warmContexts,
      recycleAfter: options.recycleAfter,
      connectEndpoint: options.connectEndpoint,
      tempDir: options.tempDir,
      prepareContext: egress.prepareContext,
      log: options.log,
    });
  }

  static async create(input: CaptureEngineOptions = {}): Promise<CaptureEngine> {
    const options = resolveOptions(input);
    await mkdir(options.tempDir, { recursive: true });
    const egress = await createEgress(options);
    const engine = new CaptureEngine(options, egress);
    try {
      for (const plugin of [corePlugin(egress), ...defaultPlugins(options, engine.storage), ...options.plugins]) await engine.use(plugin);
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

  get stats(): BrowserPool['stats'] {
    return this.pool.stats;
  }

  /** Captures a page. `input` takes the parameters of SPEC.md, typed or as strings. */
  async capture(input: CaptureInput, options: CaptureOptions = {}): Promise<CaptureResult> {
    return this.run(parseCaptureParams(input), options.signal);
  }

  /** Runs already-validated parameters (the HTTP layer parses them itself to answer 400s first). */
  async run(params: CaptureParams, signal?: AbortSignal): Promise<CaptureResult> {
    if (this.closing) throw new CaptureError('SERVICE_BUSY', 'The engine is shutting down', { headers: { 'Retry-After': '5' } });
    const id = randomBytes(16).toString('base64url');
    const budget = this.options.timeoutMs + (isVideoFormat(params.format) ? params.duration * 2000 : 0);
    const deadline = createDeadline(budget, signal);
    try {
      // Refused targets answer before they take a queue slot or a browser context.
      await abortable(this.egress.checkTarget(params.url), deadline.signal);
      return await this.pool.run(deadline.signal, (lease) => this.runPhases(id, params, deadline, lease));
    } catch (error) {
      throw toCaptureError(deadline.signal.aborted ? deadline.signal.reason : error);
    } finally {
      deadline.dispose();
    }
  }

  private async runPhases(
    id: string,
    params: CaptureParams,
    deadline: ReturnType<typeof createDeadline>,
    lease: Lease,
  ): Promise<CaptureResult> {
    const cleanups: (() => unknown)[] = [];
    const log = this.options.log;
    // A crashed renderer leaves pending calls hanging until the deadline; end this capture at once.
    const crashed = new AbortController();
    const onCrash = (): void =>
      crashed.abort(new CaptureError('CAPTURE_FAILED', 'The page crashed the browser tab', { details: { reason: 'renderer_crashed' } }));
    lease.page.once('crash', onCrash);
    cleanups.push(() => lease.page.off('crash', onCrash));
    const signal = AbortSignal.any([deadline.signal, crashed.signal]);
    const ctx: CaptureContext = {
      id,
      params,
      signal,
      remaining: deadline.remaining,
      browserContext: lease.context,
      page: lease.page,
      cdp: lease.cdp,
      state: new Map([['egress', lease.attachment]]),
      defer: (cleanup) => cleanups.push(cleanup),
      warn: (message, error) => log.warn(message, { captureId: id, error: error === undefined ? undefined : String(error) }),
    };
    let handedOver = false;
    try {
      for (const phase of PHASES) {
        if (phase === 'capture' && params.delay > 0) await sleep(params.delay, ctx.signal);
        for (const stage of this.pipeline.stages(phase)) {
          if (stage.when && !stage.when(params)) continue;
          throwIfAborted(ctx.signal);
          await abortable(Promise.resolve(stage.run(ctx)), ctx.signal);
        }
      }
      if (!ctx.output) throw new CaptureError('INTERNAL_ERROR', `No stage produced a ${params.format} output`);
      const output = ctx.output;
      const remove = async (): Promise<void> => {
        if (output.path) await rm(output.path, { force: true });
      };
      this.outstanding.add(remove);
      handedOver = true;
      return toCaptureResult(id, output, ctx.url, () => this.outstanding.delete(remove));
    } finally {
      if (!handedOver && ctx.output?.path) cleanups.push(() => rm(ctx.output?.path as string, { force: true }));
      for (const cleanup of cleanups.reverse()) {
        try {
          await cleanup();
        } catch (error) {
          ctx.warn('cleanup failed', error);
        }
      }
    }
  }

  /** The HTTP interface of SPEC.md for any framework: adapters translate to and from it. */
  handle(request: HttpRequest, options: CaptureOptions = {}): Promise<HttpResponse> {
    return this.httpInterface().handle(request, options);
  }

  /** Whether `pathname` belongs to the HTTP interface (adapters pass other paths on). */
  ownsPath(pathname: string): boolean {
    return this.httpInterface().ownsPath(pathname);
  }

  private httpInterface(): HttpInterface {
    this.http ??= createHttpInterface(this, { storage: this.storage });
    return this.http;
  }

  /** Refuses new captures, lets running ones finish, then closes browsers, plugins and temp files. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.pool.close();
      for (const plugin of [...this.pipeline.registered].reverse()) {
        await Promise.resolve(plugin.close?.()).catch((error: unknown) => this.options.log.warn('plugin close failed', { plugin: plugin.name, error: String(error) }));
      }
      await Promise.all([...this.outstanding].map((remove) => remove().catch(() => undefined)));
      await this.egress.close();
    })();
    return this.closing;
  }
}

export async function createCaptureEngine(options?: CaptureEngineOptions): Promise<CaptureEngine> {
  return CaptureEngine.create(options);
}
