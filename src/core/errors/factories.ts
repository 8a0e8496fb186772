import { CaptureError, type ErrorDetails } from './catalogue.js';

/**
 * The errors several layers raise, each built in one place so its message, details and headers
 * stay the same wherever it comes from. Codes and statuses live in the catalogue (errors.ts).
 */
export const captureErrors = {
  /** New work while the engine closes: running captures finish, new ones are told to come back. */
  shuttingDown: () => new CaptureError('SERVICE_BUSY', 'The engine is shutting down', { headers: { 'Retry-After': '5' } }),

  queueFull: (retryAfterSeconds: number) =>
    new CaptureError('SERVICE_BUSY', 'Capture queue is full, retry shortly', { headers: { 'Retry-After': String(retryAfterSeconds) } }),

  invalidParameter: (param: string, message: string, allowed: string, details: ErrorDetails = {}) =>
    new CaptureError('INVALID_PARAMETER', message, { details: { param, allowed, ...details } }),

  /** `hint`: how an operator allows the target, for refusals of its address. */
  urlNotAllowed: (url: string, message = 'The page led to an address that is not allowed', hint?: string) =>
    new CaptureError('URL_NOT_ALLOWED', message, { details: hint === undefined ? { url } : { url, hint } }),

  /** `robots_txt=respect`: the target's robots.txt disallows it for capture-engine, or could not be read (RFC 9309: everything disallowed). */
  robotsDisallowed: (url: string, message: string) => new CaptureError('URL_NOT_ALLOWED', message, { details: { url, param: 'robots_txt', reason: 'robots_txt' } }),

  /** `robots_txt=respect` while the most robots.txt fetches are under way: a later try finds them done. */
  robotsBusy: () =>
    new CaptureError('SERVICE_BUSY', 'Too many robots.txt fetches under way, retry shortly', { details: { reason: 'robots_txt' }, headers: { 'Retry-After': '5' } }),

  dnsFailed: (hostname: string) => new CaptureError('CAPTURE_FAILED', `Could not resolve ${hostname}`, { details: { reason: 'dns' } }),

  /** The page or a step of the capture failed; `reason` is a short machine-readable word. */
  captureFailed: (reason: string, message: string, cause?: unknown) => new CaptureError('CAPTURE_FAILED', message, { details: { reason }, cause }),

  /** The page's renderer crashed (out of memory, killed by the watchdog, a Chromium bug): its capture fails at once. */
  rendererCrashed: (cause?: unknown) => captureErrors.captureFailed('renderer_crashed', 'The page crashed the browser tab', cause),

  /** A failure rule the caller set (`fail_on_*`, `fail_if_*`) matched the page; `items` are what matched. */
  captureRejected: (reason: string, message: string, items: unknown[]) => new CaptureError('CAPTURE_REJECTED', message, { details: { reason, items } }),

  /** The page is a bot manager's challenge or block page (`vendor`); `items` are the markers that matched. */
  botChallenge: (vendor: string, items: string[]) =>
    new CaptureError('CAPTURE_REJECTED', `The page is a bot challenge or block page (${vendor}), not the page asked for (on_bot_challenge=capture takes it anyway)`, {
      details: { reason: 'bot_challenge', vendor, items },
    }),

  timedOut: (budgetMs?: number, cause?: unknown) =>
    new CaptureError('CAPTURE_TIMEOUT', budgetMs === undefined ? 'Capture exceeded its time budget' : `Capture exceeded its time budget of ${budgetMs} ms`, { cause }),

  /** A wait that says when the page is ready (`wait_for_*`, `wait_until`) was not met in time. */
  waitRanOut: (param: string, waitedMs: number) =>
    new CaptureError('CAPTURE_TIMEOUT', `${param} was not met within ${waitedMs} ms (best_effort=true captures the page as it is instead)`, { details: { param } }),

  clientGone: () => new CaptureError('CAPTURE_FAILED', 'Capture aborted: the client went away', { details: { reason: 'aborted' } }),

  /** The file storage cannot be reached or fails (refused, timed out, 5xx): nothing was stored or served. */
  storageUnavailable: (cause?: unknown, retryAfterSeconds = 5) =>
    new CaptureError('SERVICE_BUSY', 'File storage is unavailable, retry shortly', {
      details: { reason: 'storage_unavailable' },
      headers: { 'Retry-After': String(retryAfterSeconds) },
      cause,
    }),

  /** The job queue (Redis) cannot take or report an asynchronous capture. */
  queueUnavailable: (cause?: unknown, retryAfterSeconds = 5) =>
    new CaptureError('SERVICE_BUSY', 'The capture queue is unavailable, retry shortly', {
      details: { reason: 'queue_unavailable' },
      headers: { 'Retry-After': String(retryAfterSeconds) },
      cause,
    }),

  /** `fail_on_http_error`: the main document answered with an error status. */
  httpStatus: (status: number) =>
    new CaptureError('CAPTURE_FAILED', `The page answered HTTP ${status}`, { details: { reason: 'http_status', status } }),

  /** A selector the page never matched (or never showed) within the capture's budget. */
  elementNotFound: (param: string, selector: string) =>
    new CaptureError('ELEMENT_NOT_FOUND', `No visible element matches ${param} '${selector}'`, { details: { param, selector } }),

  /** A step of `actions` that could not be done: which one, and why. */
  actionFailed: (index: number, action: string, reason: string) =>
    new CaptureError('ACTION_FAILED', `Step ${index} of actions (${action}) failed: ${reason}`, { details: { param: 'actions', index, action, reason } }),

  internal: (message: string, cause?: unknown) => new CaptureError('INTERNAL_ERROR', message, { cause }),
};
