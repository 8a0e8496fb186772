import type { ConsoleMessage, Page, Request, Response } from 'playwright-core';
import { DIAGNOSTICS_LIMIT, type CaptureDiagnostics } from '../../src/core/diagnostics.js';
import { ABORTED, BLOCKED_BY_CLIENT, egressRefusal, isMainDocument } from '../shared/request-outcomes.js';

/** Longest text a console message keeps. */
const MAX_TEXT = 1_000;

/** One request the page made, with when it started and how it ended. */
export interface LoggedRequest {
  request: Request;
  /** Wall time it started, ms since the epoch. */
  started: number;
  /** Set once it ended: its answer (a failure has none), or why it failed. */
  ended?: { response: Response | null; error?: string };
}

/** What the page did while it was captured, as it happened. */
export interface PageLog {
  requests: LoggedRequest[];
  console: CaptureDiagnostics['console'];
  failed: CaptureDiagnostics['requests']['failed'];
  blocked: CaptureDiagnostics['requests']['blocked'];
  redirects: CaptureDiagnostics['redirects'];
  counts: CaptureDiagnostics['requests']['counts'];
  /** Stops listening. */
  detach(): void;
}

/**
 * Listens to the page from before its navigation: console messages and uncaught errors, and every
 * request with its outcome (finished, failed, or blocked on purpose by `block_ads` or the egress
 * guard), and the main document's redirects. The lists keep at most DIAGNOSTICS_LIMIT entries each; the counts count everything.
 * `egressFailureOf` names a failed request the egress guard did not carry (see egressFailure).
 */
export function logPage(page: Page, keepRequests: boolean, egressFailureOf: (request: Request) => string | undefined): PageLog {
  const log: PageLog = { requests: [], console: [], failed: [], blocked: [], redirects: [], counts: { finished: 0, failed: 0, blocked: 0 }, detach: () => undefined };
  const byRequest = new Map<Request, LoggedRequest>();
  const add = <T>(list: T[], item: T): void => void (list.length < DIAGNOSTICS_LIMIT && list.push(item));
  const onConsole = (message: ConsoleMessage): void => add(log.console, { type: message.type(), text: message.text().slice(0, MAX_TEXT) });
  const onPageError = (error: Error): void => add(log.console, { type: 'pageerror', text: error.message.slice(0, MAX_TEXT) });
  const onRequest = (request: Request): void => {
    const entry = { request, started: Date.now() };
    byRequest.set(request, entry);
    if (keepRequests) log.requests.push(entry);
  };
  const onFinished = async (request: Request): Promise<void> => {
    const response = await request.response().catch(() => null);
    const entry = byRequest.get(request);
    if (entry) entry.ended = { response };
    if (response && response.status() >= 300 && response.status() < 400 && isMainDocument(page, request)) add(log.redirects, { url: request.url(), status: response.status() });
    // The egress guard's own answer: refused on purpose (URL_NOT_ALLOWED), or never reached (DNS_FAILED, UPSTREAM_UNREACHABLE).
    const refusal = response ? egressRefusal(response) : undefined;
    if (refusal === 'URL_NOT_ALLOWED') {
      log.counts.blocked++;
      add(log.blocked, { url: request.url(), reason: refusal });
    } else if (refusal !== undefined) {
      log.counts.failed++;
      add(log.failed, { url: request.url(), error: refusal });
    } else {
      log.counts.finished++;
    }
  };
  const onFailed = (request: Request): void => {
    const error = request.failure()?.errorText ?? 'failed';
    const entry = byRequest.get(request);
    if (entry) entry.ended = { response: null, error };
    const refusal = egressFailureOf(request);
    if (BLOCKED_BY_CLIENT.test(error) || refusal === 'URL_NOT_ALLOWED') {
      log.counts.blocked++;
      add(log.blocked, { url: request.url(), reason: refusal ?? 'BLOCKED_BY_CLIENT' });
    } else if (!(ABORTED.test(error) && isMainDocument(page, request))) {
      log.counts.failed++;
      add(log.failed, { url: request.url(), error: refusal ?? error });
    }
  };
  const onFinishedEvent = (request: Request): void => void onFinished(request);
  page.on('console', onConsole);
  page.on('pageerror', onPageError);
  page.on('request', onRequest);
  page.on('requestfinished', onFinishedEvent);
  page.on('requestfailed', onFailed);
  log.detach = () => {
    page.off('console', onConsole);
    page.off('pageerror', onPageError);
    page.off('request', onRequest);
    page.off('requestfinished', onFinishedEvent);
    page.off('requestfailed', onFailed);
  };
  return log;
}
