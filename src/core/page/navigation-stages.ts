import type { CapturePlugin, CaptureContext } from '../plugin-api.js';
import { EGRESS_REPLY_HEADER, type EgressGuard } from '../ports.js';
import { captureErrors } from '../errors/factories.js';
import { trackInflight } from './network-idle.js';
import { abortable, sleep } from '../deadline.js';
import { CONTEXT_ATTACHMENT, EGRESS_FAILURE } from '../capture-state.js';
import { toCaptureError } from '../errors/to-capture-error.js';
import type { CaptureError } from '../errors/catalogue.js';
import type { Request, Response, Route } from 'playwright-core';
import { assetFor, DOCUMENT_ORIGIN, type CaptureDocument } from '../document/capture-document.js';
import { pageWait, recordWait } from './page-wait.js';
import { isListRefused, refuseListedUrls } from './url-list-route.js';

/** Quiet time that makes the network count as idle, as in Puppeteer. */
const NETWORK_IDLE_MS = 500;

/** The stages every capture needs: viewport and navigation (the target was checked before). */
export function corePlugin(egress: EgressGuard): CapturePlugin {
  return {
    name: 'core',
    stages: [
      { name: 'egress-failures', phase: 'prepare', leavesContextState: false, run: ({ state }) => state.set(EGRESS_FAILURE, (url) => egress.failureFor(state.get(CONTEXT_ATTACHMENT), url)) },
      {
        name: 'viewport',
        phase: 'prepare',
        // Every capture sets its own.
        leavesContextState: false,
        run: async ({ page, params }) => {
          const current = page.viewportSize();
          if (current?.width !== params.viewport_width || current.height !== params.viewport_height) {
            await page.setViewportSize({ width: params.viewport_width, height: params.viewport_height });
          }
        },
      },
      { name: 'goto', phase: 'navigate', leavesContextState: false, run: (ctx) => navigate(ctx, egress) },
      // First in `capture` (the core registers first): after blocking and hiding, before the shot.
      { name: 'delay', phase: 'capture', when: (params) => params.delay > 0, leavesContextState: false, run: ({ params, signal }) => sleep(params.delay, signal) },
    ],
  };
}

async function navigate(ctx: CaptureContext, egress: EgressGuard): Promise<void> {
  const { page, params } = ctx;
  if (egress.refusesUrl) await refuseListedUrls(ctx, egress);
  if (ctx.document) await serveDocument(ctx, ctx.document);
  const session = ctx.state.get(CONTEXT_ATTACHMENT);
  // Every main-frame hop (redirects included): a refused hop is the caller's URL_NOT_ALLOWED.
  const hops = [ctx.target];
  const isMainNavigation = (request: Request): boolean => request.isNavigationRequest() && request.frame() === page.mainFrame();
  const onRequest = (request: Request): void => {
    if (isMainNavigation(request)) hops.push(request.url());
  };
  // A redirect to file:, ftp: or any other scheme never becomes a request Chromium reports (it
  // aborts the navigation, often as a bare ERR_ABORTED): read it from the redirect itself.
  let leftTheWeb: string | undefined;
  const onResponse = (response: Response): void => {
    const location = response.status() >= 300 && response.status() < 400 ? response.headers().location : undefined;
    if (location === undefined || !isMainNavigation(response.request())) return;
    const target = URL.canParse(location, response.url()) ? new URL(location, response.url()) : undefined;
    if (target && target.protocol !== 'http:' && target.protocol !== 'https:') leftTheWeb = target.href;
  };
  const refusal = (): CaptureError | undefined => {
    if (leftTheWeb !== undefined) return captureErrors.urlNotAllowed(leftTheWeb, 'The page redirected to a URL that is not http or https');
    for (const url of [...hops].reverse()) {
      if (isListRefused(egress, url)) return captureErrors.urlNotAllowed(url, "The operator's URL allow or deny list refuses this URL");
      const failure = egress.failureFor(session, url);
      if (failure === 'refused') return captureErrors.urlNotAllowed(url);
      if (failure === 'dns') return captureErrors.dnsFailed(new URL(url).hostname);
      if (failure === 'proxy') return captureErrors.captureFailed('proxy', `The capture's proxy did not carry the request for ${new URL(url).host} (unreachable, or it refused its credentials)`);
    }
    return undefined;
  };
  const idleLimit = params.wait_until === 'networkidle0' ? 0 : params.wait_until === 'networkidle2' ? 2 : undefined;
  const tracker = idleLimit === undefined ? undefined : trackInflight(page);
  page.on('request', onRequest);
  page.on('response', onResponse);
  try {
    const waitUntil = params.wait_until === 'load' ? 'load' : 'domcontentloaded';
    const started = performance.now();
    const response = await abortable(page.goto(ctx.target, { waitUntil, timeout: 0, ...(params.referrer ? { referer: params.referrer } : {}) }), ctx.signal).catch((error: unknown) => {
      throw refusal() ?? unreached(egress, session, hops.at(-1)) ?? toCaptureError(error, { url: hops.at(-1) });
    });
    const refused = refusal();
    if (refused) throw refused;
    // The egress proxy's own answer (a plain-http target it could not reach) is never the page.
    const reply = response && session !== undefined ? response.headers()[EGRESS_REPLY_HEADER.toLowerCase()] : undefined;
    if (response && reply !== undefined) throw egressReplyError(reply, new URL(response.url()));
    ctx.response = response ? { status: response.status(), url: response.url(), headers: response.headers() } : null;
    if (params.fail_on_http_error && ctx.response && ctx.response.status >= 400) throw captureErrors.httpStatus(ctx.response.status);
    if (tracker && idleLimit !== undefined) await pageWait(ctx, 'wait_until', (_timeoutMs, signal) => tracker.waitForIdle(idleLimit, NETWORK_IDLE_MS, signal));
    else recordWait(ctx, 'wait_until', 'met', started);
  } finally {
    page.off('request', onRequest);
    page.off('response', onResponse);
    tracker?.detach();
  }
}

/** A page whose connection the egress guard could not make (through SOCKS, a bare net error): said as its HTTP answer says it. */
function unreached(egress: EgressGuard, session: unknown, url: string | undefined): CaptureError | undefined {
  return url !== undefined && egress.failureFor(session, url) === 'unreachable' ? egressReplyError('UPSTREAM_UNREACHABLE', new URL(url)) : undefined;
}

/** What the egress proxy answered instead of the page: its refusals are caught before, by the session's record. */
function egressReplyError(reply: string, url: URL): CaptureError {
  if (reply === 'DNS_FAILED') return captureErrors.dnsFailed(url.hostname);
  if (reply === 'UPSTREAM_UNREACHABLE') return captureErrors.captureFailed('unreachable', `The page could not be loaded: nothing answered at ${url.host} (connection refused or timed out)`);
  return captureErrors.captureFailed('invalid_response', `The page could not be loaded: ${url.host} answered what the egress proxy could not pass on (${reply})`);
}

/**
 * Answers the document's origin from memory (uploads from their files), ahead of every other route (the last one registered
 * runs first); the rest of the page's requests go out through the egress guard as any page's. A
 * path the document does not have fails to load, as a missing file does for a page opened from
 * disk (Gotenberg's): it is `fail_on_resource_failed`'s business, never a status of
 * `fail_on_resource_status`.
 */
async function serveDocument(ctx: CaptureContext, document: CaptureDocument): Promise<void> {
  const pattern = `${DOCUMENT_ORIGIN}/**`;
  const serve = async (route: Route): Promise<void> => {
    const asset = assetFor(document, route.request().url());
    const answered = asset ? route.fulfill({ status: 200, contentType: asset.type, ...(asset.path === undefined ? { body: asset.body } : { path: asset.path }) }) : route.abort('failed');
    // The page may be gone by the time a late request is answered.
    await answered.catch(() => undefined);
  };
  await ctx.page.route(pattern, serve);
  ctx.defer(() => ctx.page.unroute(pattern, serve).catch(() => undefined));
}
