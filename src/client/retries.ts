/** How a client retries answers the service asks it to come back for (429, 503). */
export interface RetryOptions {
  /** Tries in all, the first included. @default 4 */
  tries?: number;
  /** First backoff when the answer says nothing of when to come back; each next one doubles. @default 500 */
  baseMs?: number;
  /** Longest single wait. @default 30000 */
  maxWaitMs?: number;
}

const RETRIED = new Set([429, 503]);

/**
 * How long to wait before the next try (0-based `attempt` just failed): until the rate limit's
 * window resets (`X-RateLimit-Reset`, Unix ms) or `Retry-After` (seconds) when the answer says so,
 * else exponential backoff; with jitter either way, so that clients turned away together do not
 * come back together. Undefined: do not retry.
 */
export function retryDelay(response: Response, attempt: number, options: Required<RetryOptions>, now = Date.now(), random = Math.random): number | undefined {
  if (!RETRIED.has(response.status) || attempt + 1 >= options.tries) return undefined;
  const backoff = options.baseMs * 2 ** attempt;
  const reset = Number(response.headers.get('x-ratelimit-reset'));
  const retryAfter = Number(response.headers.get('retry-after'));
  const told = response.status === 429 && Number.isFinite(reset) && reset > now ? reset - now : Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined;
  // Told when: that, plus up to a tenth more. Not told: full jitter over the backoff.
  const wait = told === undefined ? backoff * (0.5 + random() / 2) : told + random() * Math.min(backoff, told / 10);
  return Math.min(options.maxWaitMs, Math.ceil(wait));
}

/** Waits `ms`, or rejects with the signal's reason once it aborts. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', stop, { once: true });
  });
}
