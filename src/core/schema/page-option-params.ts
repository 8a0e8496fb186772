import Type from 'typebox';
import { DEVICE_LIST_URL, DEVICE_NAMES, deviceNamed } from './devices.js';

const SELECTOR = { maxLength: 1024 };
/** A cookie's `sameSite`, as Chromium spells it; a caller may write it in any case. */
const SAME_SITE = ['Strict', 'Lax', 'None'] as const;

/**
 * The page options of a capture beyond the original interface: how the page is emulated, what is
 * done to it before the shot, and which part of it is taken. Part of the one request schema.
 */
export const PAGE_OPTION_PROPERTIES = {
  device: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      examples: [...DEVICE_NAMES],
      description: `A device from Playwright's descriptors (any case), e.g. \`iPhone 15\`, \`Pixel 7\`, \`iPad Pro 11 landscape\` (list: ${DEVICE_LIST_URL}): its viewport, scale, user agent, is_mobile and has_touch, each overridden by the parameter itself.`,
    }),
  ),
  is_mobile: Type.Boolean({ default: false, description: 'Emulate a mobile device: the page\'s `<meta name="viewport">` is honoured and overlay scrollbars are used. Without the tag a page is laid out 980 px wide and zoomed out to fit, as on a phone: a full_page shot is then as wide as the layout, and clip_* is in px of the page as shown.' }),
  has_touch: Type.Boolean({ default: false, description: 'Emulate a touch screen: touch events, `pointer: coarse`, `navigator.maxTouchPoints` 5.' }),
  device_scale_factor: Type.Optional(Type.Number({ minimum: 1, maximum: 4, description: 'Output pixels per CSS pixel (retina: 2); the viewport and full page keep their CSS size. Default 1.' })),
  dark_mode: Type.Boolean({ default: false, description: 'Emulate `prefers-color-scheme: dark`.' }),
  media_type: Type.Optional(Type.Enum(['screen', 'print'], { description: 'CSS media the page is rendered in: a screenshot in print media, a pdf in screen media. Default: print for pdf, screen otherwise.' })),
  reduced_motion: Type.Boolean({ default: false, description: 'Emulate `prefers-reduced-motion: reduce`, finish finite CSS animations and transitions, and return infinite ones to their start (as Playwright\'s `animations: "disabled"`).' }),
  caret: Type.Enum(['hide', 'initial'], { default: 'hide', description: 'The text caret of a focused field in an image: `hide` makes it transparent, as Playwright\'s screenshots do, so that two shots do not differ by its blink; `initial` leaves it as it blinks.' }),
  user_agent: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'User-Agent header and `navigator.userAgent`. Default: Chromium\'s own followed by `capture-engine/<version>` and the operator\'s URL (or the operator\'s `userAgent`).' })),
  locale: Type.Optional(Type.String({ minLength: 2, maxLength: 35, description: 'BCP 47 language tag for `navigator.language` and `Accept-Language`. Default en-US.' })),
  timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone the page sees (e.g. Europe/Paris). Default: the server\'s.' })),
  wait_for_selector: Type.Optional(Type.String({ ...SELECTOR, minLength: 1, description: 'Wait until an element matching this CSS selector is attached and visible (else 422 ELEMENT_NOT_FOUND).' })),
  click: Type.Optional(Type.String({ ...SELECTOR, minLength: 1, description: 'Click the element matching this CSS selector once the page is ready, before hiding and delay (else 422).' })),
  selector: Type.Optional(Type.String({ ...SELECTOR, minLength: 1, description: 'Capture only the box of the element matching this CSS selector. It must be visible within a second of the page being ready, else 422 ELEMENT_NOT_FOUND at once (wait_for_selector waits longer).' })),
  scroll_into_view: Type.Optional(
    Type.String({ ...SELECTOR, minLength: 1, description: 'Scroll the element matching this CSS selector to the top of the viewport before the shot, as `scrollIntoView` does: every scrolling box around it too, both ways (else 422 ELEMENT_NOT_FOUND).' }),
  ),
  scroll_into_view_offset: Type.Integer({ minimum: 0, maximum: 10_000, default: 0, description: 'With scroll_into_view: CSS px kept above the element, in the window and in each scrolling box around it (its scroll margin). capture-website\'s `scrollToElement` offset scrolls past the element instead.' }),
  selector_all: Type.Boolean({ default: false, description: 'With selector: capture the box around every element that matches it, not only the first.' }),
  padding: Type.Integer({ minimum: 0, maximum: 1000, default: 0, description: 'With selector: CSS px of the page kept around the element on each side (less at the page\'s top and left edges).' }),
  styles: Type.Optional(Type.String({ maxLength: 32 * 1024, description: 'CSS injected into the page before the capture.' })),
  scripts: Type.Optional(Type.String({ maxLength: 32 * 1024, description: 'JavaScript run in the page once it is ready: a script that is one expression is evaluated, a function it gives called and a promise it gives awaited before the shot (shot-scraper\'s `--javascript`); any other runs as the body of an async function. Its requests still pass the egress guard.' })),
  omit_background: Type.Boolean({ default: false, description: 'Transparent background where the page sets none (png and webp).' }),
  clip_x: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Left of the rectangle of the page to capture, CSS px (with clip_y, clip_width, clip_height).' })),
  clip_y: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Top of the rectangle to capture, CSS px.' })),
  clip_width: Type.Optional(Type.Integer({ minimum: 1, maximum: 16_384, description: 'Width of the rectangle to capture, CSS px.' })),
  clip_height: Type.Optional(Type.Integer({ minimum: 1, maximum: 16_384, description: 'Height of the rectangle to capture, CSS px.' })),
  headers: Type.Optional(
    Type.Record(Type.String({ pattern: '^[!#$%&\'*+.^_`|~0-9A-Za-z-]{1,100}$' }), Type.String({ maxLength: 4096 }), {
      maxProperties: 20,
      description: 'Extra request headers sent to the target\'s origin only: an object (JSON body) or a JSON string (query, form). Host, Cookie and hop-by-hop headers are refused.',
    }),
  ),
  cookies: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.String({ minLength: 1, maxLength: 256 }),
        value: Type.String({ maxLength: 4096 }),
        path: Type.Optional(Type.String({ maxLength: 1024 })),
        secure: Type.Optional(Type.Boolean()),
        httpOnly: Type.Optional(Type.Boolean()),
        sameSite: Type.Optional(Type.Enum([...SAME_SITE])),
      }),
      { maxItems: 50, description: 'Cookies set for the target URL\'s host only: an array of {name, value, path?, secure?, httpOnly?, sameSite? (Strict, Lax or None, any case)} or a Cookie-header string.' },
    ),
  ),
  proxy: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        'Every request of the page leaves through this proxy: `http://`, `https://` or `socks5://` with `user:pass@` if it needs them (the proxy\'s address must pass the egress guard), or the name of one of the operator\'s proxies (`CAPTURE_PROXIES`). Tier-gated; credentials are never logged or echoed.',
    }),
  ),
  fail_on_http_error: Type.Boolean({ default: false, description: 'A main document answering 400 or more fails with 502 CAPTURE_FAILED (reason http_status) instead of being captured.' }),
  metadata: Type.Boolean({ default: false, description: 'With response_type=json, add `page`: what format=metadata answers (title, description, canonical, lang, open_graph, twitter, json_ld, icons, feeds, status, final_url, headers, fonts), and og_image (open_graph.image).' }),
};

/** What a parameter whose type is no plain scalar accepts, in words. */
export const ALLOWED_TEXT: Partial<Record<keyof typeof PAGE_OPTION_PROPERTIES, string>> = {
  device: `a device name from ${DEVICE_LIST_URL}`,
  headers: 'an object (or JSON string) of at most 20 header names to string values, without Host, Cookie or hop-by-hop headers',
  cookies: 'an array of {name, value, path?, secure?, httpOnly?, sameSite?} or a Cookie header string',
  proxy: 'a proxy name the operator defined, or http(s)://[user:pass@]host:port or socks5://[user:pass@]host:port',
};

/**
 * Turns the forms a query string or form can carry into the typed value: `headers` as a JSON
 * string, `cookies` as a Cookie header (`a=1; b=2`). Undefined when the value cannot be read.
 */
export const PAGE_OPTION_READERS: Partial<Record<keyof typeof PAGE_OPTION_PROPERTIES, (value: unknown) => unknown>> = {
  headers: (value) => readJsonText(value),
  cookies: (value) => {
    if (typeof value !== 'string') return Array.isArray(value) ? value.map(withSameSiteCase) : value;
    return value
      .split(';')
      .map((pair) => pair.trim())
      .filter((pair) => pair.length > 0)
      .map((pair) => {
        const equals = pair.indexOf('=');
        return equals <= 0 ? { name: '', value: '' } : { name: pair.slice(0, equals).trim(), value: pair.slice(equals + 1).trim() };
      });
  },
};

/** An object parameter as a query or form carries it, a JSON string; undefined when it is not JSON. */
export function readJsonText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}

/** `sameSite` in any case (`lax`, `LAX`), as RFC 6265bis matches the attribute, spelt as Chromium takes it. */
function withSameSiteCase(cookie: unknown): unknown {
  if (cookie === null || typeof cookie !== 'object' || !('sameSite' in cookie) || typeof cookie.sameSite !== 'string') return cookie;
  const spelt = SAME_SITE.find((value) => value.toLowerCase() === (cookie.sameSite as string).toLowerCase());
  return spelt === undefined ? cookie : { ...cookie, sameSite: spelt };
}

/** Headers a caller may not set: the browser owns them, or they would change the connection. */
const FORBIDDEN_HEADERS = new Set(['host', 'cookie', 'connection', 'keep-alive', 'proxy-authorization', 'proxy-authenticate', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'content-length']);

/** Checks a type cannot express: the value must mean something to Chromium. */
export const PAGE_OPTION_CHECKS: Partial<Record<keyof typeof PAGE_OPTION_PROPERTIES, (value: never) => string | undefined>> = {
  device: (name: string) => (deviceNamed(name) === undefined ? `'${name}' is not one of Playwright's devices` : undefined),
  headers: (headers: Record<string, string>) => {
    const refused = Object.keys(headers).find((name) => FORBIDDEN_HEADERS.has(name.toLowerCase()));
    return refused === undefined ? undefined : `header '${refused}' may not be set`;
  },
  proxy: (proxy: string) => (/^[A-Za-z0-9_-]{1,64}$/.test(proxy) || /^(https?|socks5h?):\/\/[^/?#\s]+\/?$/i.test(proxy) ? undefined : 'neither a proxy name nor an http(s) or socks5 proxy URL'),
  timezone: (zone: string) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
      return undefined;
    } catch {
      return `'${zone}' is not an IANA time zone`;
    }
  },
  locale: (tag: string) => {
    try {
      Intl.getCanonicalLocales(tag);
      return undefined;
    } catch {
      return `'${tag}' is not a BCP 47 language tag`;
    }
  },
};
