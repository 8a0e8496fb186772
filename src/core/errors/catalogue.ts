import type { PhaseTimings } from '../phases.js';

/**
 * One catalogue of every error the engine can answer. The HTTP status, whether a retry can help and
 * whether the message may be shown to a client all live here, so adapters never decide them.
 */
export const ERROR_CATALOGUE = {
  INVALID_PARAMETER: { status: 400, message: 'Invalid parameter', retryable: false, expose: true },
  INCOMPATIBLE_PARAMETERS: { status: 400, message: 'Incompatible parameters', retryable: false, expose: true },
  MISSING_API_KEY: { status: 401, message: 'API key required', retryable: false, expose: true },
  INVALID_API_KEY: { status: 401, message: 'Invalid API key', retryable: false, expose: true },
  INVALID_SIGNATURE: { status: 403, message: 'Invalid signature', retryable: false, expose: true },
  LINK_EXPIRED: { status: 403, message: 'Link expired', retryable: false, expose: true },
  TIER_RESTRICTED: { status: 403, message: 'Not available on this tier', retryable: false, expose: true },
  URL_NOT_ALLOWED: { status: 403, message: 'URL not allowed', retryable: false, expose: true },
  NOT_FOUND: { status: 404, message: 'Not found', retryable: false, expose: true },
  ELEMENT_NOT_FOUND: { status: 422, message: 'Element not found', retryable: false, expose: true },
  ACTION_FAILED: { status: 422, message: 'An action failed', retryable: false, expose: true },
  CAPTURE_REJECTED: { status: 422, message: 'Capture rejected by a failure rule', retryable: false, expose: true },
  IDEMPOTENCY_KEY_IN_USE: { status: 409, message: 'A request with this Idempotency-Key is still running', retryable: true, expose: true },
  IDEMPOTENCY_KEY_REUSED: { status: 422, message: 'Idempotency-Key reused with other parameters', retryable: false, expose: true },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed', retryable: false, expose: true },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'Payload too large', retryable: false, expose: true },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported media type', retryable: false, expose: true },
  RANGE_NOT_SATISFIABLE: { status: 416, message: 'Range not satisfiable', retryable: false, expose: true },
  RATE_LIMIT_EXCEEDED: { status: 429, message: 'Rate limit exceeded', retryable: true, expose: true },
  QUOTA_EXCEEDED: { status: 429, message: 'Monthly quota exceeded', retryable: false, expose: true },
  BROWSER_TIME_EXCEEDED: { status: 429, message: 'Browser time of this hour used up', retryable: true, expose: true },
  INTERNAL_ERROR: { status: 500, message: 'Internal error', retryable: false, expose: false },
  CAPTURE_FAILED: { status: 502, message: 'Capture failed', retryable: true, expose: true },
  UPLOAD_FAILED: { status: 502, message: 'Upload to upload_url failed', retryable: true, expose: true },
  SERVICE_BUSY: { status: 503, message: 'Service busy', retryable: true, expose: true },
  CAPTURE_TIMEOUT: { status: 504, message: 'Capture timed out', retryable: true, expose: true },
} as const satisfies Record<string, { status: number; message: string; retryable: boolean; expose: boolean }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** Extra fields an error adds to its JSON body (`param`, `allowed`, `reason`, ...). */
export type ErrorDetails = Record<string, unknown>;

export class CaptureError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  /** Whether `message` may be sent to a client; unexposed errors answer the catalogue message. */
  readonly expose: boolean;
  readonly details: ErrorDetails;
  /** Response headers this error adds (e.g. `Retry-After`). */
  readonly headers: Record<string, string>;
  /** Set by the engine for a capture that failed once it asked for a browser: how far it got. */
  timings?: PhaseTimings;

  constructor(
    code: ErrorCode,
    message?: string,
    options: { details?: ErrorDetails; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    const entry = ERROR_CATALOGUE[code];
    // A client error is an answer, not a fault: nobody reads its stack, and capturing one is the
    // largest single cost of turning away a request (401, 429) under load.
    const stackTraceLimit = Error.stackTraceLimit;
    if (entry.status < 500) Error.stackTraceLimit = 0;
    super(message ?? entry.message, options.cause === undefined ? undefined : { cause: options.cause });
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'CaptureError';
    this.code = code;
    this.status = entry.status;
    this.retryable = entry.retryable;
    this.expose = entry.expose;
    this.details = options.details ?? {};
    this.headers = options.headers ?? {};
  }

  /** The JSON body of the error table (docs/http-service.md): `{ error, code, ...details }`. */
  toJSON(): Record<string, unknown> {
    return {
      error: this.expose ? this.message : ERROR_CATALOGUE[this.code].message,
      code: this.code,
      ...(this.expose ? this.details : {}),
    };
  }
}

export function isCaptureError(value: unknown): value is CaptureError {
  return value instanceof CaptureError;
}

export function statusOf(code: ErrorCode): number {
  return ERROR_CATALOGUE[code].status;
}
