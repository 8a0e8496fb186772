import { appendFileSync, writeFileSync } from 'node:fs';
import type { Page, Request } from 'playwright-core';
import type { CaptureContext, CapturePlugin } from '../core/plugin-api.js';
import type { StorageState } from './storage-state.js';
import { BodyLog, attachBodies, type Har } from './har-bodies.js';

/** What shot-scraper's flags ask of every page: `--log-console`, `--log-requests`, `--bypass-csp`, `-a`. */
export interface PageHookOptions {
  logConsole: boolean;
  /** A file that gets a JSON line per finished request. */
  logRequests?: string;
  bypassCsp: boolean;
  storageState?: StorageState;
}

/** A script of `javascript` (or `html -s`) to evaluate once the page is ready, and its value once it ran. */
export interface Evaluation {
  script: string;
  value?: unknown;
  /** What the script threw: the CLI fails with it once the capture is over, as shot-scraper exits 1. */
  error?: Error;
}

/** The CLI's own stages on the engine's pages, and what they bring back from a capture. */
export interface PageHooks {
  plugin: CapturePlugin;
  /** Set before a capture: evaluated in its page once it is ready. */
  evaluation?: Evaluation;
  /** Set by a command: its own part in each page, before the page navigates (the storyboard's binding). */
  beforeNavigation?: (page: Page) => Promise<void>;
  /** Set by a command: its own part once the page is ready (auth --headless reads the storage state). */
  afterReady?: (ctx: CaptureContext) => Promise<void>;
  /** The HAR of each capture that asked for one, in order, with its bodies (har-bodies.ts). */
  readonly hars: Har[];
}

export function pageHooks(options: PageHookOptions): PageHooks {
  if (options.logRequests !== undefined) writeFileSync(options.logRequests, '');
  const bodyLog = new BodyLog();
  // The bodies of the capture under way (captures run one at a time), for its HAR.
  let bodies: ReturnType<BodyLog['listen']> | undefined;
  const hooks: PageHooks = {
    hars: [],
    plugin: {
      name: 'cli-page-hooks',
      stages: [
        {
          name: 'before-navigation',
          phase: 'prepare',
          run: async (ctx) => {
            bodies = ctx.params.har ? bodyLog.listen(ctx) : undefined;
            await prepare(ctx, options);
            await hooks.beforeNavigation?.(ctx.page);
          },
        },
        {
          // After the engine's own capture stages: the page as they left it, every wait over.
          name: 'evaluate',
          phase: 'capture',
          when: () => hooks.evaluation !== undefined,
          run: async (ctx) => {
            const evaluation = hooks.evaluation as Evaluation;
            try {
              evaluation.value = await evaluate(ctx, evaluation.script);
            } catch (error) {
              if (!(error instanceof ScriptError)) throw error;
              evaluation.error = error;
            }
          },
        },
        { name: 'after-ready', phase: 'capture', when: () => hooks.afterReady !== undefined, run: (ctx) => (hooks.afterReady as NonNullable<PageHooks['afterReady']>)(ctx) },
        {
          name: 'keep-har',
          phase: 'store',
          leavesContextState: false,
          when: (params) => params.har,
          run: async (ctx) => {
            const har = ctx.sidecars.find((sidecar) => sidecar.name === 'har');
            if (har) hooks.hars.push(attachBodies(JSON.parse(har.data.toString('utf8')) as Har, (await bodies?.()) ?? []));
          },
        },
      ],
    },
  };
  return hooks;
}

async function prepare(ctx: CaptureContext, { logConsole, logRequests, bypassCsp, storageState }: PageHookOptions): Promise<void> {
  if (bypassCsp) await ctx.cdp.send('Page.setBypassCSP', { enabled: true });
  if (storageState !== undefined) {
    if (storageState.cookies.length > 0) await ctx.browserContext.addCookies(storageState.cookies);
    // As Playwright restores a storage state: each origin's localStorage, set before the page's scripts run.
    if (storageState.origins.length > 0) {
      await ctx.browserContext.addInitScript((origins) => {
        for (const { origin, localStorage: items } of origins) if (origin === location.origin) for (const { name, value } of items) localStorage.setItem(name, value);
      }, storageState.origins);
    }
  }
  if (logConsole) {
    const onConsole = (message: { text(): string }): void => void process.stderr.write(`${message.text()}\n`);
    ctx.page.on('console', onConsole);
    ctx.defer(() => ctx.page.off('console', onConsole));
  }
  if (logRequests !== undefined) {
    // shot-scraper's line per answered request: method, url, status, size of the body, timing.
    const onFinished = (request: Request): void => {
      void Promise.all([request.response(), request.sizes()]).then(
        ([response, sizes]) => appendFileSync(logRequests, `${JSON.stringify({ method: request.method(), url: request.url(), status: response?.status() ?? null, size: sizes.responseBodySize, timing: request.timing() })}\n`),
        () => undefined,
      );
    };
    ctx.page.on('requestfinished', onFinished);
    ctx.defer(() => ctx.page.off('requestfinished', onFinished));
  }
}

/**
 * shot-scraper's evaluation: the script's value, and when that value is a function (`() => {...}`,
 * `async () => {...}`), what calling it gives; promises are awaited. Run as DevTools runs a console
 * line, so statements work and the page's Content-Security-Policy does not stop it.
 */
async function evaluate(ctx: CaptureContext, script: string): Promise<unknown> {
  const ran = await ctx.cdp.send('Runtime.evaluate', { expression: script, awaitPromise: true, replMode: true });
  if (ran.exceptionDetails) throw new ScriptError(thrown(ran.exceptionDetails));
  const { result } = ran;
  if (result.objectId === undefined) return result.value;
  const read = await ctx.cdp.send('Runtime.callFunctionOn', {
    objectId: result.objectId,
    functionDeclaration: 'async function () { return typeof this === "function" ? await this() : this; }',
    awaitPromise: true,
    returnByValue: true,
  });
  if (read.exceptionDetails) throw new ScriptError(thrown(read.exceptionDetails));
  return read.result.value;
}

/** What was thrown: an error's stack, or a thrown value itself (`throw 'Wrong title detected'`). */
function thrown({ exception, text }: { exception?: { description?: string; value?: unknown }; text: string }): string {
  if (exception?.description !== undefined) return exception.description;
  return exception !== undefined && 'value' in exception ? String(exception.value) : text;
}

/** What a script threw. */
class ScriptError extends Error {
  constructor(message: string) {
    super(`the script threw: ${message}`);
    this.name = 'ScriptError';
  }
}
