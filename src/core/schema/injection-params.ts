import Type from 'typebox';
import { CaptureError } from '../errors/catalogue.js';

/** Most scripts or stylesheets a capture loads by URL: each is a request and a wait. */
export const MAX_INJECTED_URLS = 10;

/**
 * What the caller puts into the page besides `styles` and `scripts`: scripts that run before the
 * page's own, scripts and stylesheets loaded by URL (requests of the page, through the egress guard),
 * ES modules, and the referrer of the navigation. Part of the one request schema.
 */
export const INJECTION_PROPERTIES = {
  init_scripts: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 32 * 1024,
      description: "JavaScript run in every document of the page before its own scripts (capture-website's preloadFunction, Playwright's addInitScript); tiers that allow `scripts`.",
    }),
  ),
  script_urls: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 8192,
      description: `Comma-separated http(s) URLs of scripts added to the page once it is ready, in order and each awaited, before \`scripts\` runs; loaded by the page through the egress guard (at most ${MAX_INJECTED_URLS}; tiers that allow \`scripts\`).`,
    }),
  ),
  style_urls: Type.Optional(
    Type.String({ minLength: 1, maxLength: 8192, description: `Comma-separated http(s) URLs of stylesheets added to the page once it is ready, before \`styles\`; loaded through the egress guard (at most ${MAX_INJECTED_URLS}).` }),
  ),
  scripts_type: Type.Optional(
    Type.Enum(['classic', 'module'], {
      description: '`module`: `scripts` and `script_urls` run as ES modules (`<script type="module">`: `import` works, top-level `await` is awaited), as capture-website\'s `modules`. Default classic.',
    }),
  ),
  referrer: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: "The referrer of the navigation to `url` (`document.referrer` and the Referer header of that request only), as Playwright's goto `referer`." })),
};

const listOf = (text: string | undefined): string[] => (text ?? '').split(',').map((item) => item.trim()).filter((item) => item.length > 0);

/** The URLs of `script_urls` or `style_urls`, in order. */
export function injectedUrls(text: string | undefined): string[] {
  return listOf(text);
}

const isWebUrl = (text: string): boolean => URL.canParse(text) && ['http:', 'https:'].includes(new URL(text).protocol);

function urlList(text: string): string | undefined {
  const urls = listOf(text);
  if (urls.length > MAX_INJECTED_URLS) return `at most ${MAX_INJECTED_URLS} URLs, not ${urls.length}`;
  const bad = urls.find((url) => !isWebUrl(url));
  return bad === undefined ? undefined : `'${bad.slice(0, 100)}' is not an http or https URL`;
}

export const INJECTION_ALLOWED_TEXT = {
  script_urls: `comma-separated http or https URLs, at most ${MAX_INJECTED_URLS}`,
  style_urls: `comma-separated http or https URLs, at most ${MAX_INJECTED_URLS}`,
  referrer: 'an http or https URL of at most 2048 characters',
};

export const INJECTION_CHECKS = {
  script_urls: urlList,
  style_urls: urlList,
  referrer: (text: string): string | undefined => (isWebUrl(text) ? undefined : 'not an http or https URL'),
};

function incompatible(message: string, params: string[]): CaptureError {
  return new CaptureError('INCOMPATIBLE_PARAMETERS', message, { details: { params } });
}

/** Cross-parameter rules of what is injected; each refusal names the parameters involved. */
export function checkInjectionCombinations(given: Map<string, unknown>): void {
  if (given.get('scripts_type') === 'module' && !given.has('scripts') && !given.has('script_urls')) {
    throw incompatible('scripts_type is how scripts and script_urls run: it needs one of them', ['scripts_type', 'scripts']);
  }
  if (given.has('referrer') && !given.has('url')) throw incompatible('referrer is that of the navigation to url; a document (html, markdown, files) has none', ['referrer', 'url']);
}
