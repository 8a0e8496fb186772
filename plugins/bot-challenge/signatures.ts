import type { BotVendor } from '../../src/core/bot-challenge.js';

/**
 * One thing a challenge or block page shows: a response header of the main document (its value a
 * case-insensitive pattern, any value when absent), an element, the title or the start of the
 * visible text (patterns). Patterns are strings: they are matched in the page too.
 */
export type Marker = { header: string; value?: string } | { selector: string } | { title: string } | { text: string };

export type MarkerRule = Marker & {
  /** Enough on its own. Other markers count only on a refusal status (`BLOCK_STATUSES`), as sites use them on ordinary pages too. */
  strong?: boolean;
  /** The page may clear itself (a JavaScript challenge that reloads or redirects): it is waited for. */
  clears?: boolean;
};

/** A bot manager's interstitial, recognised by what its vendor documents serving. */
export interface PageSignature {
  vendor: BotVendor;
  /** Where the markers are described. */
  source: string;
  markers: MarkerRule[];
}

/** A CAPTCHA widget: a wall only when it covers half of the viewport or is the page's only content. */
export interface WidgetSignature {
  vendor: BotVendor;
  source: string;
  /** The widget's container or frame; invisible variants (reCAPTCHA v3's badge) are left out. */
  selector: string;
}

/** Statuses bot managers refuse with: 401/403 (block), 405 (AWS WAF CAPTCHA), 429 (rate), 503 (challenge). */
export const BLOCK_STATUSES: readonly number[] = [401, 403, 405, 429, 503];

/** Checked in this order: a vendor's page before the widgets it may embed (Cloudflare's challenge runs Turnstile). */
export const PAGE_SIGNATURES: readonly PageSignature[] = [
  {
    vendor: 'cloudflare',
    source: 'https://developers.cloudflare.com/cloudflare-challenges/challenge-types/challenge-pages/detect-response/ ; https://developers.cloudflare.com/rules/custom-errors/reference/error-page-types/',
    markers: [
      { header: 'cf-mitigated', value: '^challenge$', strong: true, clears: true },
      { selector: 'script[src*="/cdn-cgi/challenge-platform/"]', clears: true },
      { title: '^Just a moment\\.\\.\\.$', clears: true },
      { selector: '#cf-error-details' },
      { text: 'Cloudflare Ray ID' },
    ],
  },
  {
    vendor: 'akamai',
    source: 'https://community.akamai.com/community/cloud-security/blog/2016/04/07/why-is-akamai-blocking-me',
    markers: [
      { text: 'Reference\\s*#\\d+\\.[0-9a-f]+\\.\\d+\\.[0-9a-f]+' },
      { selector: 'a[href*="errors.edgesuite.net"]' },
      { header: 'server', value: '^AkamaiGHost$' },
    ],
  },
  {
    vendor: 'datadome',
    source: 'https://docs.datadome.co/reference/validate-request',
    markers: [
      { selector: 'iframe[src*="captcha-delivery.com"]', strong: true },
      { selector: 'script[src*="ct.captcha-delivery.com"]', strong: true },
      { header: 'x-datadome' },
      { header: 'x-dd-b' },
    ],
  },
  {
    vendor: 'perimeterx',
    source: 'https://docs.humansecurity.com/applications-and-accounts/docs/supported-features-fce',
    markers: [
      { selector: '#px-captcha', strong: true },
      { selector: 'script[src*="captcha.px-cdn.net"], script[src*="/captcha/captcha.js"]' },
    ],
  },
  {
    vendor: 'imperva',
    // No block page of Imperva's own docs was in reach: the iframe and incident text as described there.
    source: 'https://raw.githubusercontent.com/feder-cr/invisible_playwright/master/docs/imperva-incapsula-explained.md',
    markers: [
      { selector: 'iframe[src*="/_Incapsula_Resource"]', strong: true },
      { text: 'Incapsula incident ID', strong: true },
      { header: 'x-iinfo' },
    ],
  },
  {
    vendor: 'aws-waf',
    source: 'https://docs.aws.amazon.com/waf/latest/APIReference/API_CaptchaAction.html ; https://docs.aws.amazon.com/waf/latest/developerguide/waf-captcha-and-challenge-actions.html',
    markers: [
      { header: 'x-amzn-waf-action', value: '^captcha$', strong: true },
      { header: 'x-amzn-waf-action', value: '^challenge$', strong: true, clears: true },
    ],
  },
  {
    vendor: 'kasada',
    // Kasada publishes no block page: its 429 carries the `x-kpsdk-*` headers its client SDK reads.
    source: 'https://www.kasada.io/',
    markers: [
      { header: 'x-kpsdk-ct', clears: true },
      { selector: 'script[src*="/ips.js"]', clears: true },
    ],
  },
];

export const WIDGET_SIGNATURES: readonly WidgetSignature[] = [
  { vendor: 'hcaptcha', source: 'https://docs.hcaptcha.com/', selector: '.h-captcha, iframe[src*="hcaptcha.com"]' },
  { vendor: 'turnstile', source: 'https://developers.cloudflare.com/turnstile/get-started/client-side-rendering/', selector: '.cf-turnstile, iframe[src*="challenges.cloudflare.com"]' },
  {
    vendor: 'recaptcha',
    source: 'https://developers.google.com/recaptcha/docs/display',
    selector: '.g-recaptcha:not(.grecaptcha-badge *), iframe[src*="/recaptcha/"]:not([src*="size=invisible"]):not(.grecaptcha-badge *)',
  },
];

/** How a marker is named in a refusal's `items` and the diagnostics. */
export function describeMarker(marker: Marker): string {
  if ('header' in marker) return marker.value === undefined ? `header ${marker.header}` : `header ${marker.header}: /${marker.value}/`;
  if ('selector' in marker) return `selector ${marker.selector}`;
  if ('title' in marker) return `title /${marker.title}/`;
  return `text /${marker.text}/`;
}
