import type { Request } from 'playwright-core';
import type { LoggedRequest } from './page-log.js';

/** A HAR 1.2 header or query pair. */
interface Pair {
  name: string;
  value: string;
}

/** The parts of a HAR 1.2 log (http://www.softwareishard.com/blog/har-12-spec/) a page load fills. */
export interface Har {
  log: {
    version: '1.2';
    creator: { name: string; version: string };
    browser: { name: string; version: string };
    pages: { startedDateTime: string; id: string; title: string; pageTimings: { onContentLoad: number; onLoad: number } }[];
    entries: HarEntry[];
  };
}

interface HarEntry {
  pageref: string;
  startedDateTime: string;
  time: number;
  request: { method: string; url: string; httpVersion: string; headers: Pair[]; queryString: Pair[]; cookies: []; headersSize: number; bodySize: number };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    headers: Pair[];
    cookies: [];
    content: { size: number; mimeType: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
    _error?: string;
  };
  cache: Record<string, never>;
  timings: { blocked: number; dns: number; connect: number; ssl: number; send: number; wait: number; receive: number };
  serverIPAddress?: string;
  _resourceType: string;
}

export interface HarPage {
  started: number;
  title: string;
  /** ms from `started`; -1 when the event did not happen. */
  onContentLoad: number;
  onLoad: number;
}

const PAGE_ID = 'page_1';

/**
 * A HAR of the requests that ended while the page was captured, in the order they started, bodies
 * omitted (sizes kept), built from Playwright's own records of each request (headers as sent and
 * received, timing, sizes). `header` rewrites each header value (redaction).
 */
export async function buildHar(requests: readonly LoggedRequest[], page: HarPage, browserVersion: string, header: (name: string, value: string) => string): Promise<Har> {
  const ended = requests.filter((entry) => entry.ended !== undefined);
  const entries = await Promise.all(ended.map((entry) => harEntry(entry, header)));
  return {
    log: {
      version: '1.2',
      creator: { name: 'capture-engine', version: '' },
      browser: { name: 'Chromium', version: browserVersion },
      pages: [{ startedDateTime: new Date(page.started).toISOString(), id: PAGE_ID, title: page.title, pageTimings: { onContentLoad: page.onContentLoad, onLoad: page.onLoad } }],
      entries,
    },
  };
}

async function harEntry({ request, started, ended }: LoggedRequest, header: (name: string, value: string) => string): Promise<HarEntry> {
  const response = ended?.response ?? null;
  const [requestHeaders, responseHeaders, sizes, server] = await Promise.all([
    pairs(request.headersArray(), header),
    response ? pairs(response.headersArray(), header) : [],
    request.sizes().catch(() => undefined),
    response?.serverAddr().catch(() => null),
  ]);
  const timing = request.timing();
  const timings = harTimings(timing);
  const url = new URL(request.url());
  // Playwright does not tell the protocol an answer came in; a HAR leaves it empty rather than guess.
  const httpVersion = '';
  return {
    pageref: PAGE_ID,
    startedDateTime: new Date(timing.startTime > 0 ? timing.startTime : started).toISOString(),
    time: Object.values(timings).reduce((sum, ms) => sum + Math.max(0, ms), 0),
    request: {
      method: request.method(),
      url: request.url(),
      httpVersion,
      headers: requestHeaders,
      queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
      cookies: [],
      headersSize: sizes?.requestHeadersSize ?? -1,
      bodySize: sizes?.requestBodySize ?? 0,
    },
    response: {
      status: response?.status() ?? 0,
      statusText: response?.statusText() ?? '',
      httpVersion,
      headers: responseHeaders,
      cookies: [],
      content: { size: sizes?.responseBodySize ?? -1, mimeType: responseHeaders.find((pair) => pair.name.toLowerCase() === 'content-type')?.value ?? '' },
      redirectURL: responseHeaders.find((pair) => pair.name.toLowerCase() === 'location')?.value ?? '',
      headersSize: sizes?.responseHeadersSize ?? -1,
      bodySize: sizes?.responseBodySize ?? -1,
      ...(ended?.error ? { _error: ended.error } : {}),
    },
    cache: {},
    timings,
    ...(server ? { serverIPAddress: server.ipAddress } : {}),
    _resourceType: request.resourceType(),
  };
}

async function pairs(headers: Promise<{ name: string; value: string }[]>, header: (name: string, value: string) => string): Promise<Pair[]> {
  const list = await headers.catch(() => []);
  return list.map(({ name, value }) => ({ name, value: header(name, value) }));
}

/** HAR's phases from Playwright's timing (ms from the request's start, -1 when a phase did not happen). */
function harTimings(timing: ReturnType<Request['timing']>): HarEntry['timings'] {
  const span = (from: number, to: number): number => (from >= 0 && to >= 0 ? Math.max(0, to - from) : -1);
  const ssl = span(timing.secureConnectionStart, timing.connectEnd);
  return {
    blocked: timing.domainLookupStart > 0 ? timing.domainLookupStart : -1,
    dns: span(timing.domainLookupStart, timing.domainLookupEnd),
    connect: span(timing.connectStart, timing.connectEnd),
    ssl,
    send: 0,
    wait: Math.max(0, span(timing.requestStart, timing.responseStart)),
    receive: Math.max(0, span(timing.responseStart, timing.responseEnd)),
  };
}
