import type { Page } from 'playwright-core';
import type { CaptureContext, CapturePlugin } from '../../src/core/plugin-api.js';
import { stateKey } from '../../src/core/capture-state.js';
import type { CaptureDiagnostics } from '../../src/core/diagnostics.js';
import { BOT_CHALLENGE } from '../../src/core/bot-challenge.js';
import { logPage, type PageLog } from './page-log.js';
import { buildHar } from './har.js';
import { egressFailure } from '../shared/request-outcomes.js';
import { redactStrings, redactor } from './redact.js';

const LOG = stateKey<{ log: PageLog; started: number }>('diagnostics.log');

/**
 * `diagnostics=true` and `har=true`: what the page did while it was captured, as `diagnostics` in
 * the result (console, failed and blocked requests, redirects, the document's status and timing,
 * how each wait ended) and as a HAR stored beside the file. What the caller put in `headers` and
 * `cookies` is redacted from both.
 */
export function diagnostics(): CapturePlugin {
  return {
    name: 'diagnostics',
    stages: [
      {
        name: 'log-page',
        phase: 'prepare',
        leavesContextState: false,
        when: (params) => params.diagnostics || params.har,
        run: (ctx) => {
          const log = logPage(ctx.page, ctx.params.har, (request) => egressFailure(ctx.state, request));
          ctx.state.set(LOG, { log, started: Date.now() });
          ctx.defer(() => log.detach());
        },
      },
      {
        // After the shot: the page as it was taken, with every wait over.
        name: 'report',
        phase: 'encode',
        leavesContextState: false,
        when: (params) => params.diagnostics || params.har,
        run: report,
      },
    ],
  };
}

async function report(ctx: CaptureContext): Promise<void> {
  const logged = ctx.state.get(LOG);
  if (!logged) return;
  const { log, started } = logged;
  const redact = redactor(ctx.params);
  const timing = await documentTiming(ctx.page);
  if (ctx.params.diagnostics) {
    const diagnostics: CaptureDiagnostics = {
      document: { url: ctx.response?.url ?? null, status: ctx.response?.status ?? null, timing: timing.document },
      redirects: log.redirects,
      console: log.console,
      requests: { total: log.counts.finished + log.counts.failed + log.counts.blocked, failed: log.failed, blocked: log.blocked, counts: log.counts },
      waits: ctx.waits,
      ...botChallengeMet(ctx),
    };
    ctx.diagnostics = redactStrings(diagnostics, redact.text);
  }
  if (ctx.params.har) {
    const page = { started, title: timing.title, onContentLoad: timing.document.dom_content_loaded ?? -1, onLoad: timing.document.load ?? -1 };
    const har = redactStrings(await buildHar(log.requests, page, ctx.browserContext.browser()?.version() ?? '', redact.header), redact.text);
    ctx.sidecars.push({ name: 'har', extension: 'har', contentType: 'application/json', data: Buffer.from(JSON.stringify(har)) });
  }
}

function botChallengeMet(ctx: CaptureContext): Pick<CaptureDiagnostics, 'bot_challenge'> {
  const met = ctx.state.get(BOT_CHALLENGE);
  return met ? { bot_challenge: { vendor: met.vendor, matched: met.matched } } : {};
}

/** The document's title and load times, ms from the navigation's start (absent for events that did not happen). */
async function documentTiming(page: Page): Promise<{ title: string; document: CaptureDiagnostics['document']['timing'] }> {
  const read = page.evaluate(() => {
    const [navigation] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[];
    const at = (ms: number | undefined): number | undefined => (ms && ms > 0 ? Math.round(ms) : undefined);
    return {
      title: document.title,
      document: { response_start: at(navigation?.responseStart), dom_content_loaded: at(navigation?.domContentLoadedEventEnd), load: at(navigation?.loadEventEnd) },
    };
  });
  return read.catch(() => ({ title: '', document: {} }));
}
