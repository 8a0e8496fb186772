import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { captureErrors } from '../../src/core/errors/factories.js';
import type { ContentFormat } from '../../src/core/schema/formats.js';
import { contentInPage, type ContentRequest } from './content-in-page.js';
import { linksInPage, metadataInPage, scrapeInPage } from './extract-in-page.js';
import type { ScrapeRule } from '../../src/core/page-content.js';
import { pageLibraries } from './page-libraries.js';
import { ariaBudgetInPage, restoreAriaBudget } from './aria-budget-in-page.js';

/**
 * Bounds of every output, so no page can make one blow up the service's memory: longer text is
 * cut and flagged `truncated` (a JSON field; a text output's capture reports it in `incomplete`).
 */
export const OUTPUT_LIMITS = {
  /** Characters of Markdown, HTML, text or an ARIA snapshot; of all the URLs and texts of `links`; of all the texts, HTML and attributes of `scrape`. */
  maxChars: 5_000_000,
  /** Links of `format=links`. */
  maxLinks: 10_000,
  /** Characters of one link's text. */
  maxLinkText: 500,
  /** Characters of all JSON-LD blocks together. */
  maxJsonLdChars: 1_000_000,
  /** Characters of one text of `metadata` (title, description, a property, a font family...). */
  maxMetadataText: 2_000,
  /** Characters of one address or header of `metadata`: 8,000, the URI length RFC 9110 (4.1) asks every HTTP party to accept. */
  maxMetadataUrl: 8_000,
  /** Properties of each of `og:*` and `twitter:*`. */
  maxMetadataProperties: 100,
  /** Elements of one scrape selector. */
  maxScrapeElements: 1_000,
  /** Characters of one scraped element's text, HTML or attribute. */
  maxScrapeChars: 100_000,
} as const;

export interface PageOutputOptions {
  /** `markdown` and `html`: the main content (a reader view's) or the whole body. @default 'main' */
  content?: 'main' | 'full';
  /** `links`: only links inside the elements this CSS selector matches. */
  linksSelector?: string;
  /** `aria`: the snapshot of the first element this CSS selector matches. @default the body */
  selector?: string;
  /** `scrape`: the selectors whose elements are read. */
  scrape?: ScrapeRule[];
  /** `metadata`: the main document's answer (its headers are given with cookies redacted). */
  response?: { status: number; headers?: Record<string, string> } | null;
  /** `metadata`: the `final_url` answered instead of the page's address (a given document's is the engine's own). */
  finalUrl?: string;
  /** Longest the ARIA snapshot may take, in ms. @default 30000 */
  timeoutMs?: number;
}

export interface PageOutput {
  /** The output, as served: UTF-8 text or JSON. */
  data: Buffer;
  /** Cut at one of `OUTPUT_LIMITS`. */
  truncated: boolean;
}

const REDACTED_HEADERS = new Set(['set-cookie', 'cookie', 'authorization', 'proxy-authorization']);

/**
 * One output of a settled page: its Markdown, HTML, text, links, metadata, ARIA snapshot or the
 * elements of a scrape. The reading runs in the page (the renderer's CPU, not the service's), and
 * every answer is capped there. Used by the capture's stages and by anything holding a page.
 */
export async function pageOutput(page: Page, format: ContentFormat, options: PageOutputOptions = {}): Promise<PageOutput> {
  switch (format) {
    case 'markdown':
    case 'html':
    case 'text': {
      const request: ContentRequest = { format, content: options.content ?? 'main', maxChars: OUTPUT_LIMITS.maxChars };
      // Text needs no library; Markdown and HTML load theirs in the page on each call (a fresh page has none).
      const libraries = format === 'text' || (format === 'html' && request.content === 'full') ? 'null' : pageLibraries();
      const { text, truncated } = (await page.evaluate(`(${contentInPage.toString()})(${JSON.stringify(request)}, ${libraries})`)) as { text: string; truncated: boolean };
      return { data: Buffer.from(text), truncated };
    }
    case 'links': {
      const answer = await page.evaluate(linksInPage, { selector: options.linksSelector, max: OUTPUT_LIMITS.maxLinks, maxText: OUTPUT_LIMITS.maxLinkText, maxChars: OUTPUT_LIMITS.maxChars });
      if ('invalidSelector' in answer) throw invalidSelector('links_selector', options.linksSelector);
      return json({ links: answer.links, ...(answer.truncated ? { truncated: true } : {}) }, answer.truncated);
    }
    case 'metadata': {
      const { maxJsonLdChars, maxMetadataText: maxText, maxMetadataUrl: maxUrl, maxMetadataProperties: maxProperties } = OUTPUT_LIMITS;
      const { truncated: cut, final_url, ...read } = await page.evaluate(metadataInPage, { maxJsonLdChars, maxText, maxUrl, maxProperties });
      // A header as long as an address at most (a Content-Security-Policy runs to a few thousand characters).
      const longHeader = Object.values(options.response?.headers ?? {}).some((value) => value.length > maxUrl);
      const headers = options.response?.headers && Object.fromEntries(Object.entries(options.response.headers).map(([name, value]) => [name, REDACTED_HEADERS.has(name.toLowerCase()) ? '[redacted]' : value.slice(0, maxUrl)]));
      const truncated = cut || longHeader;
      return json({ ...read, status: options.response?.status ?? null, final_url: options.finalUrl ?? final_url, headers: headers ?? null, ...(truncated ? { truncated: true } : {}) }, truncated);
    }
    case 'aria':
      return ariaSnapshot(page, options);
    case 'scrape': {
      const rules = options.scrape ?? [];
      const answer = await page.evaluate(scrapeInPage, { rules, maxElements: OUTPUT_LIMITS.maxScrapeElements, maxChars: OUTPUT_LIMITS.maxScrapeChars, maxTotalChars: OUTPUT_LIMITS.maxChars });
      if ('invalidSelector' in answer) throw invalidSelector(`scrape[${answer.invalidSelector}].selector`, rules[answer.invalidSelector]?.selector);
      return json({ results: answer.results, ...(answer.truncated ? { truncated: true } : {}) }, answer.truncated);
    }
  }
}

/**
 * Playwright's ARIA snapshot (the YAML Playwright MCP gives agents) of the body or of `selector`'s
 * first element, kept within `OUTPUT_LIMITS.maxChars` in the page before it is taken: cut there, a
 * page's 20 MB of text cost the service 70 MB while it crossed.
 */
async function ariaSnapshot(page: Page, { selector, timeoutMs = 30_000 }: PageOutputOptions): Promise<PageOutput> {
  const target = page.locator(selector ?? 'body').first();
  let found: number;
  try {
    found = await page.locator(selector ?? 'body').count();
  } catch {
    throw invalidSelector('selector', selector);
  }
  if (found === 0) throw captureErrors.elementNotFound('selector', selector ?? 'body');
  const key = `__captureAriaBudget_${randomUUID().replaceAll('-', '')}`;
  const cut = await target.evaluate(ariaBudgetInPage, { maxChars: OUTPUT_LIMITS.maxChars, key });
  let yaml: string;
  try {
    yaml = await target.ariaSnapshot({ timeout: timeoutMs });
  } finally {
    // Other outputs of the same capture (outputs=) read the page after this one.
    if (cut) await page.evaluate(restoreAriaBudget, key);
  }
  // The estimate leaves room for YAML's own characters; a page that grows meanwhile is cut here.
  const over = yaml.length > OUTPUT_LIMITS.maxChars;
  return { data: Buffer.from(over ? yaml.slice(0, OUTPUT_LIMITS.maxChars) : yaml), truncated: cut || over };
}

function json(value: unknown, truncated: boolean): PageOutput {
  return { data: Buffer.from(JSON.stringify(value)), truncated };
}

function invalidSelector(param: string, selector: string | undefined): Error {
  return captureErrors.invalidParameter(param, `Invalid parameter '${param}': ${JSON.stringify(selector)} is not a valid CSS selector`, 'a CSS selector');
}
