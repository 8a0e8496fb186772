import type { CaptureParams } from '../../src/core/schema/capture-params.js';

export const REDACTED = '[redacted]';

/** Secrets shorter than this are only redacted where they are known to be (header values). */
const MIN_SECRET = 4;

/**
 * What a caller put in `headers` and `cookies` must not come back in a report (diagnostics, a HAR)
 * that may be stored and shared: the request headers of those names and every `Cookie` header lose
 * their values, and the values themselves are cut out of any other text (a page that echoes its
 * token to the console, a URL that carries it).
 */
export function redactor(params: CaptureParams): { header(name: string, value: string): string; text(value: string): string } {
  const headerNames = new Set([...Object.keys(params.headers ?? {}).map((name) => name.toLowerCase()), 'cookie', 'authorization']);
  const secrets = [...Object.values(params.headers ?? {}), ...(params.cookies ?? []).map((cookie) => cookie.value)]
    .filter((secret) => secret.length >= MIN_SECRET)
    // Longest first, so a secret that contains another is cut whole.
    .sort((a, b) => b.length - a.length);
  const text = (value: string): string => secrets.reduce((redacted, secret) => redacted.split(secret).join(REDACTED), value);
  return {
    header: (name, value) => (headerNames.has(name.toLowerCase()) ? REDACTED : text(value)),
    text,
  };
}

/** Every string in `value` (a JSON-like tree) passed through `redact`. */
export function redactStrings<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => redactStrings(item, redact)) as T;
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactStrings(item, redact)])) as T;
  return value;
}
