/**
 * What the JSON content formats answer (`format=links`, `metadata`, `scrape`), for the library,
 * the typed client and the plugin that reads them from the page.
 */

export interface PageLink {
  /** Absolute. */
  url: string;
  text: string;
  rel: string | null;
  same_origin: boolean;
}

/** `format=links`. */
export interface LinksAnswer {
  links: PageLink[];
  /** Cut at the first 10,000. */
  truncated?: true;
}

/** `format=metadata`. */
export interface MetadataAnswer {
  title: string;
  description: string | null;
  canonical: string | null;
  lang: string | null;
  /** `og:*` properties without the prefix (`image`, `title`...), URLs absolute. */
  open_graph: Record<string, string>;
  /** `twitter:*` properties without the prefix. */
  twitter: Record<string, string>;
  /** The parsed JSON-LD blocks. */
  json_ld: unknown[];
  icons: { url: string; rel: string; sizes: string | null; type: string | null }[];
  feeds: { url: string; type: string; title: string | null }[];
  status: number | null;
  final_url: string;
  /** Of the main document, cookies and authorization redacted. */
  headers: Record<string, string> | null;
  /** Families the page loaded (`document.fonts`). */
  fonts: string[];
  /** JSON-LD cut at 1,000,000 characters, or a text, an address or the properties cut at their caps (`OUTPUT_LIMITS`). */
  truncated?: true;
}

export interface ScrapeRule {
  selector: string;
  /** Attributes answered; all when absent. */
  attributes?: string[];
}

export interface ScrapedElement {
  text: string;
  html: string;
  attributes: Record<string, string>;
  /** In page coordinates, CSS px. */
  box: { x: number; y: number; width: number; height: number };
}

/** `format=scrape`. */
export interface ScrapeAnswer {
  results: { selector: string; elements: ScrapedElement[] }[];
  /** A selector matched more than 1,000 elements, or a text was cut at 100,000 characters. */
  truncated?: true;
}

/** What each content format answers: text, or its JSON. */
export interface ContentAnswers {
  markdown: string;
  html: string;
  text: string;
  aria: string;
  links: LinksAnswer;
  metadata: MetadataAnswer;
  scrape: ScrapeAnswer;
}
