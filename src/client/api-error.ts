/** An answer of the service that is not a success, as its error catalogue describes it. */
export class CaptureApiError extends Error {
  override readonly name = 'CaptureApiError';

  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** The catalogue's code (`INVALID_PARAMETER`, `RATE_LIMITED`, ...); `HTTP_<status>` for an answer without one. */
    readonly code: string,
    message: string,
    /** The rest of the error body: `param`, `tier`, `required`, `reason`, ... */
    readonly details: Readonly<Record<string, unknown>> = {},
    /** The answer's headers (rate limit, quota, `Retry-After`). */
    readonly headers?: Headers,
  ) {
    super(message);
  }

  /** The parameter the error names, when it names one. */
  get param(): string | undefined {
    return typeof this.details.param === 'string' ? this.details.param : undefined;
  }
}

/** The error an answer's body describes (`{ error, code, ... }`), or one made from its status. */
export async function apiErrorOf(response: Response): Promise<CaptureApiError> {
  const text = await response.text().catch(() => '');
  let body: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed !== null && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    // not JSON: a proxy's page, say; the status speaks for it
  }
  const { error, code, ...details } = body;
  return new CaptureApiError(
    response.status,
    typeof code === 'string' ? code : `HTTP_${response.status}`,
    typeof error === 'string' ? error : `The service answered ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`,
    details,
    response.headers,
  );
}
