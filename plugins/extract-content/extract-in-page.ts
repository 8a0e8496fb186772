/**
 * What the page says about itself, read in the page (each function is serialised with
 * `toString()`: nothing from outside it but its argument). Every list is capped in the page, so
 * a page with a million links hands the service at most the cap.
 */
import type { MetadataAnswer, PageLink, ScrapedElement, ScrapeRule } from '../../src/core/page-content.js';

/**
 * Every `<a href>` (inside `selector`'s elements when given), absolute, first of each URL, fragment-only ones left out:
 * at most `max` links, and `maxChars` characters of URLs and texts in all (a page can make each URL megabytes long).
 */
export function linksInPage({ selector, max, maxText, maxChars }: { selector?: string; max: number; maxText: number; maxChars: number }): { links: PageLink[]; truncated: boolean } | { invalidSelector: true } {
  let roots: ParentNode[];
  try {
    roots = selector === undefined ? [document] : [...document.querySelectorAll(selector)];
  } catch {
    return { invalidSelector: true };
  }
  const seen = new Set<string>();
  const links: PageLink[] = [];
  let chars = 0;
  for (const root of roots) {
    for (const anchor of root.querySelectorAll<HTMLAnchorElement>('a[href]')) {
      const href = anchor.getAttribute('href')?.trim() ?? '';
      if (href.startsWith('#') || /^javascript:/i.test(href)) continue;
      let url: URL;
      try {
        url = new URL(anchor.href);
      } catch {
        continue;
      }
      if (seen.has(url.href)) continue;
      if (links.length >= max) return { links, truncated: true };
      seen.add(url.href);
      const text = (anchor.innerText || anchor.textContent || '').trim().replace(/\s+/g, ' ').slice(0, maxText);
      chars += url.href.length + text.length;
      if (chars > maxChars) return { links, truncated: true };
      links.push({ url: url.href, text, rel: anchor.getAttribute('rel'), same_origin: url.origin === location.origin });
    }
  }
  return { links, truncated: false };
}

/** The metadata the page itself can tell: the status and headers of its document come from Node. */
export type PageMetadataInPage = Omit<MetadataAnswer, 'status' | 'headers' | 'truncated'> & { truncated: boolean };

/** Bounds of `metadataInPage`'s answer: every string and list in it is capped, in the page. */
export interface MetadataBounds {
  maxJsonLdChars: number;
  /** Characters of one text (title, description, a property, a font family...). */
  maxText: number;
  /** Characters of one address (canonical, an icon, a feed, a property holding a URL, final_url). */
  maxUrl: number;
  /** Properties of each of `og:*` and `twitter:*`. */
  maxProperties: number;
}

/** The head's metadata: Open Graph and Twitter properties (URLs absolute), JSON-LD blocks parsed, icons, feeds, fonts in use. */
export function metadataInPage({ maxJsonLdChars, maxText, maxUrl, maxProperties }: MetadataBounds): PageMetadataInPage {
  let truncated = false;
  // A page can set document.title or a meta tag to megabytes: only the start crosses to the service.
  const clip = (value: string, max = maxText): string => {
    if (value.length <= max) return value;
    truncated = true;
    return value.slice(0, max);
  };
  const clipped = (value: string | null | undefined, max = maxText): string | null => (value == null ? null : clip(value, max));
  const absolute = (value: string): string => {
    try {
      return clip(new URL(value, document.baseURI).href, maxUrl);
    } catch {
      return clip(value);
    }
  };
  // Properties holding an address: `og:image`, `og:image:secure_url`, `twitter:image:src`, `og:url`...
  const isAddress = (name: string): boolean => /(^|:)(url|secure_url|image|video|audio|src|player)$/.test(name);
  const properties = (prefix: string): Record<string, string> => {
    const found: Record<string, string> = {};
    for (const meta of document.querySelectorAll<HTMLMetaElement>('meta[property], meta[name]')) {
      const key = (meta.getAttribute('property') ?? meta.getAttribute('name') ?? '').trim().toLowerCase();
      if (!key.startsWith(prefix) || meta.content === '') continue;
      const name = clip(key.slice(prefix.length));
      // The first of a repeated property is the main one (og:image before its alternatives).
      if (name in found) continue;
      if (Object.keys(found).length >= maxProperties) {
        truncated = true;
        break;
      }
      found[name] = isAddress(name) ? absolute(meta.content) : clip(meta.content);
    }
    return found;
  };
  let jsonLdChars = 0;
  const jsonLd: unknown[] = [];
  for (const script of document.querySelectorAll('script[type="application/ld+json"]')) {
    const text = script.textContent ?? '';
    if (jsonLdChars + text.length > maxJsonLdChars) {
      truncated = true;
      break;
    }
    jsonLdChars += text.length;
    try {
      jsonLd.push(JSON.parse(text));
    } catch {
      // A block the page got wrong is no block: crawlers skip it too.
    }
  }
  const links = [...document.querySelectorAll<HTMLLinkElement>('link[rel][href]')];
  const rels = (link: HTMLLinkElement): string[] => link.rel.toLowerCase().split(/\s+/);
  const feedTypes = ['application/rss+xml', 'application/atom+xml', 'application/feed+json', 'application/json'];
  const fonts = new Set<string>();
  for (const face of document.fonts) if (face.status === 'loaded') fonts.add(face.family.replace(/^["']|["']$/g, ''));
  const answer = {
    title: clip(document.title),
    description: clipped(document.querySelector<HTMLMetaElement>('meta[name="description" i]')?.content),
    canonical: clipped(links.find((link) => rels(link).includes('canonical'))?.href, maxUrl),
    lang: clipped(document.documentElement.lang || null),
    open_graph: properties('og:'),
    twitter: properties('twitter:'),
    json_ld: jsonLd,
    icons: links
      .filter((link) => rels(link).some((rel) => rel === 'icon' || rel === 'apple-touch-icon' || rel === 'apple-touch-icon-precomposed' || rel === 'mask-icon'))
      .slice(0, 100)
      .map((link) => ({ url: clip(link.href, maxUrl), rel: clip(link.rel), sizes: clipped(link.getAttribute('sizes')), type: clipped(link.getAttribute('type')) })),
    feeds: links
      .filter((link) => rels(link).includes('alternate') && feedTypes.includes((link.type || '').toLowerCase()))
      .slice(0, 100)
      .map((link) => ({ url: clip(link.href, maxUrl), type: clip(link.type), title: clipped(link.getAttribute('title')) })),
    final_url: clip(location.href, maxUrl),
    fonts: [...fonts].slice(0, 200).map((family) => clip(family)),
  };
  return { ...answer, truncated };
}

/**
 * Each rule's elements: text, inner HTML, attributes (those named, or all) and box in page coordinates. Each text at
 * most `maxChars`, and `maxTotalChars` in all: twenty rules of a thousand nested elements would otherwise answer
 * gigabytes (each element's HTML holds its descendants').
 */
export function scrapeInPage({ rules, maxElements, maxChars, maxTotalChars }: { rules: ScrapeRule[]; maxElements: number; maxChars: number; maxTotalChars: number }): { results: { selector: string; elements: ScrapedElement[] }[]; truncated: boolean } | { invalidSelector: number } {
  let truncated = false;
  let left = maxTotalChars;
  const clip = (text: string): string => {
    const max = Math.min(maxChars, left);
    if (text.length > max) truncated = true;
    const kept = text.length > max ? text.slice(0, max) : text;
    left -= kept.length;
    return kept;
  };
  const results: { selector: string; elements: ScrapedElement[] }[] = [];
  for (const [index, { selector, attributes }] of rules.entries()) {
    let matched: Element[];
    try {
      matched = [...document.querySelectorAll(selector)];
    } catch {
      return { invalidSelector: index };
    }
    if (matched.length > maxElements) truncated = true;
    const elements: ScrapedElement[] = [];
    for (const element of matched.slice(0, maxElements)) {
      // Elements past the budget are not read at all (their HTML alone can be large to make).
      if (left <= 0) {
        truncated = true;
        break;
      }
      const rect = element.getBoundingClientRect();
      const values: Record<string, string> = {};
      for (const name of attributes ?? element.getAttributeNames()) {
        const value = element.getAttribute(name);
        if (value !== null) values[clip(name)] = clip(value);
      }
      const text = element instanceof HTMLElement ? element.innerText : (element.textContent ?? '');
      elements.push({ text: clip(text.trim()), html: clip(element.innerHTML), attributes: values, box: { x: rect.x + scrollX, y: rect.y + scrollY, width: rect.width, height: rect.height } });
    }
    results.push({ selector, elements });
  }
  return { results, truncated };
}
