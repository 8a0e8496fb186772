import Type from 'typebox';

const SELECTOR = { minLength: 1, maxLength: 1024 };

/**
 * When a page counts as ready beyond `wait_until`, when a capture is refused for what the page
 * did, and what it reports about the page: the explicit waits, the per-request budget, best effort,
 * the failure rules, diagnostics and the HAR. Part of the one request schema.
 */
export const READINESS_PROPERTIES = {
  settle: Type.Boolean({
    default: true,
    description:
      'After `wait_until` and the web fonts (waited for settle or not), wait (at most 3 s, and a quarter of the budget) until the page looks finished: no request in flight (long polls aside), no DOM change or layout shift for a moment (not waited for on a loaded page that runs no script), the images in view loaded, finite animations over.',
  }),
  wait_for_function: Type.Optional(
    Type.String({ minLength: 1, maxLength: 32 * 1024, description: 'Wait until this JavaScript expression is truthy: a function it gives is called and a promise awaited, and what they give must be truthy (tiers that allow `scripts`).' }),
  ),
  wait_for_hidden: Type.Optional(Type.String({ ...SELECTOR, description: 'Wait until no element matching this CSS selector is visible (a spinner that leaves).' })),
  wait_for_event: Type.Optional(
    Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_:.-]{0,99}$', description: 'Wait until this DOM event has fired on `window` or `document` since the page started loading (e.g. a custom `rendered`).' }),
  ),
  timeout: Type.Optional(Type.Integer({ minimum: 1000, maximum: 3_600_000, description: 'The capture\'s budget in ms, at most the service\'s (its default).' })),
  best_effort: Type.Boolean({
    default: false,
    description: 'When a wait runs out, capture what is there instead of failing, and say which wait (`X-Capture-Incomplete`, `incomplete` in JSON).',
  }),
  fail_on_console_error: Type.Boolean({ default: false, description: 'Refuse (422 CAPTURE_REJECTED) a page that threw an uncaught exception or called `console.error`.' }),
  fail_on_resource_status: Type.Optional(
    Type.String({ minLength: 1, maxLength: 256, description: 'Refuse a page one of whose subresources answered one of these statuses: codes, `4xx`-style classes or ranges, e.g. `404,5xx,520-530`.' }),
  ),
  fail_on_resource_status_ignore: Type.Optional(
    Type.String({ minLength: 1, maxLength: 4096, description: 'Comma-separated domains (and their subdomains) `fail_on_resource_status` leaves out.' }),
  ),
  fail_on_resource_failed: Type.Boolean({ default: false, description: 'Refuse a page one of whose subresources could not be loaded (refused, DNS, reset; not those `block_ads` blocked).' }),
  fail_if_content_contains: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'Refuse a page whose visible text contains this text.' })),
  fail_if_selector: Type.Optional(Type.String({ ...SELECTOR, description: 'Refuse a page where an element matches this CSS selector.' })),
  fail_if_selector_missing: Type.Optional(Type.String({ ...SELECTOR, description: 'Refuse a page where no element matches this CSS selector.' })),
  on_bot_challenge: Type.Enum(['reject', 'capture'], {
    default: 'reject',
    description:
      'A bot manager\'s challenge or block page (Cloudflare, Akamai, DataDome, HUMAN, Imperva, AWS WAF, Kasada, or a CAPTCHA covering the page): `reject` answers 422 CAPTURE_REJECTED (`reason: bot_challenge`, `vendor`) and costs no quota; `capture` takes it anyway, marked `X-Capture-Incomplete: bot_challenge`. A challenge that clears itself is waited for first.',
  }),
  robots_txt: Type.Enum(['ignore', 'respect'], {
    default: 'ignore',
    description:
      'For crawl-like uses (batches, render links): `respect` reads the target origin\'s robots.txt (RFC 9309; through the egress guard, at most 500 KiB in 5 s, kept up to 24 h) and refuses a URL it disallows for `capture-engine` with 403 URL_NOT_ALLOWED (`reason: robots_txt`), as it does when the file cannot be read (a 5xx, a timeout); a missing file (4xx) allows everything.',
  }),
  diagnostics: Type.Boolean({
    default: false,
    description:
      'With `response_type=json` (or `async=true`, in the status): add `diagnostics`, what the page did (console messages and errors, failed and blocked requests, redirects, the document\'s status and timing, how each wait ended). Values of `headers` and `cookies` are redacted.',
  }),
  har: Type.Boolean({
    default: false,
    description: 'With `response_type=json` (or `async=true`, in the status): store a HAR 1.2 of the page load beside the file (bodies omitted) and answer its URL as `har_url`. Values of `headers` and `cookies` are redacted.',
  }),
};

/** An inclusive range of HTTP statuses. */
export type StatusRange = readonly [number, number];

const STATUS_ITEM = /^(?:([1-5])xx|([1-5]\d\d)(?:-([1-5]\d\d))?)$/i;

/** `404,5xx,520-530` as ranges; undefined when an item is none of a code, a class or a range. */
export function statusRanges(text: string): StatusRange[] | undefined {
  const ranges: StatusRange[] = [];
  for (const item of text.split(',').map((part) => part.trim())) {
    const match = STATUS_ITEM.exec(item);
    if (!match) return undefined;
    const [, hundred, from, to] = match;
    if (hundred !== undefined) ranges.push([Number(hundred) * 100, Number(hundred) * 100 + 99]);
    else if (Number(to ?? from) < Number(from)) return undefined;
    else ranges.push([Number(from), Number(to ?? from)]);
  }
  return ranges;
}

/** The domains of `fail_on_resource_status_ignore`, lower case, without a leading dot. */
export function ignoredDomains(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((domain) => domain.trim().toLowerCase().replace(/^\.+/, ''))
    .filter((domain) => domain.length > 0);
}

export const READINESS_ALLOWED_TEXT: Partial<Record<keyof typeof READINESS_PROPERTIES, string>> = {
  fail_on_resource_status: 'comma-separated statuses, classes or ranges, e.g. 404,5xx,520-530',
  wait_for_event: 'a DOM event name: a letter, then letters, digits, _ : . or -, at most 100',
};

export const READINESS_CHECKS: Partial<Record<keyof typeof READINESS_PROPERTIES, (value: never) => string | undefined>> = {
  fail_on_resource_status: (text: string) => (statusRanges(text) === undefined ? `'${text}' is not a list of statuses, classes (4xx) or ranges (500-599)` : undefined),
};
