import { CaptureError } from './catalogue.js';
import { captureErrors } from './factories.js';
import { classifyNetError, netErrorName } from './net-errors.js';

/** Node's own socket errors, for failures that happen outside the browser. */
const NODE_REASONS: [RegExp, string][] = [
  [/ENOTFOUND/, 'dns'],
  [/ECONNREFUSED/, 'connection_refused'],
  [/ECONNRESET/, 'connection_reset'],
];

const BROWSER_GONE = /Target (page, context or browser )?(has been )?closed|Browser has been closed|browser has disconnected|Target crashed|Page crashed|Session closed/i;

/** The main document is a file to download (Content-Disposition: attachment): there is no page to capture. */
const DOWNLOAD = /Download is starting/i;

/**
 * A protocol call that met the page between two documents: it reloaded, refreshed or navigated
 * itself while being captured.
 */
const NAVIGATED = /Not attached to an active page|Execution context was destroyed|Cannot find context with specified id|frame was detached|because of a navigation|Inspected target navigated or closed/i;

/** Whether `error` only says the page navigated meanwhile: the same step may succeed on its new document. */
export function isNavigationRace(error: unknown): boolean {
  return error instanceof Error && NAVIGATED.test(error.message);
}

/**
 * Sorts whatever a capture threw into the catalogue, in one place: raw Chromium, CDP and
 * Playwright failures become codes with a short reason; anything unknown is INTERNAL_ERROR.
 * `url` is the page the failure concerns, for refusals (a redirect to another scheme).
 */
export function toCaptureError(error: unknown, context: { url?: string } = {}): CaptureError {
  if (error instanceof CaptureError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof Error && error.name === 'TimeoutError') return captureErrors.timedOut(undefined, error);
  const net = netErrorName(message);
  if (net !== undefined) {
    const reason = classifyNetError(net);
    if (reason === 'url_not_allowed') return captureErrors.urlNotAllowed(context.url ?? '', `The page led to a URL that is not allowed (${net.toLowerCase()})`);
    return captureErrors.captureFailed(reason, `The page could not be loaded (${reason})`, error);
  }
  for (const [pattern, reason] of NODE_REASONS) {
    if (pattern.test(message)) return captureErrors.captureFailed(reason, `The page could not be loaded (${reason})`, error);
  }
  if (DOWNLOAD.test(message)) return captureErrors.captureFailed('download', 'The URL answers with a file to download, not a page', error);
  if (NAVIGATED.test(message)) return captureErrors.captureFailed('page_navigated', 'The page kept navigating away while it was captured', error);
  if (/Unable to capture screenshot/i.test(message)) return captureErrors.captureFailed('screenshot_failed', 'Chromium could not draw the page', error);
  if (BROWSER_GONE.test(message)) return captureErrors.captureFailed('browser_crashed', 'The browser failed during the capture', error);
  if (error instanceof Error && error.name === 'AbortError') return captureErrors.captureFailed('aborted', 'Capture aborted', error);
  return captureErrors.internal(message, error);
}
