import os from 'node:os';
import path from 'node:path';
import { createTestEngine } from '../helpers/engine.js';
import { decode, near, type DecodedImage } from '../helpers/pixels.js';
import { corpusResolver, HOST_RESOLVER_RULES, startCorpusServer, type CorpusServer } from '../../fixtures/corpus/server.js';
import { COLOURS, VIEWPORT, type CorpusPage, type Point } from '../../fixtures/corpus/manifest.js';
import type { CaptureEngine, CaptureEngineOptions, CapturePlugin } from '../../src/index.js';
import { BLOCK_COOKIES_RESULT } from '../../plugins/block-cookies/index.js';

/** What the page looked like to a script once the capture was taken. */
export interface PageInspection {
  overflowY: string[];
  bodyPosition: string;
  scrollHeight: number;
  /** window.scrollY after asking for 1000 px: > 0 when the page still scrolls. */
  scrolledTo: number;
  /** Whether page content is still blurred (walls blur what they cover). */
  blurred: boolean;
  cookies?: unknown;
}

/**
 * Reads the page after the screenshot (encode phase), where a person would try to scroll; keyed
 * by capture URL plus a marker in the fragment, so concurrent captures do not mix.
 */
export function inspector(results: Map<string, PageInspection>): CapturePlugin {
  return {
    name: 'test-inspector',
    stages: [
      {
        name: 'inspect',
        phase: 'encode',
        run: async (ctx) => {
          const seen = await ctx.page.evaluate(() => {
            const element = document.scrollingElement ?? document.documentElement;
            window.scrollTo(0, 1000);
            return {
              overflowY: [getComputedStyle(document.documentElement).overflowY, getComputedStyle(document.body).overflowY],
              bodyPosition: getComputedStyle(document.body).position,
              scrollHeight: element.scrollHeight,
              scrolledTo: window.scrollY,
              blurred: [...document.body.children].some((child) => /blur\(/.test(getComputedStyle(child).filter)),
            };
          });
          results.set(ctx.target, { ...seen, cookies: ctx.state.get(BLOCK_COOKIES_RESULT) });
        },
      },
    ],
  };
}

export interface Corpus {
  server: CorpusServer;
  engine: CaptureEngine;
  inspections: Map<string, PageInspection>;
  close(): Promise<void>;
}

/** The corpus server and an engine that resolves its host names to it. */
export async function openCorpus(options: CaptureEngineOptions = {}): Promise<Corpus> {
  const server = await startCorpusServer();
  const inspections = new Map<string, PageInspection>();
  const engine = await createTestEngine({
    browserArgs: [HOST_RESOLVER_RULES],
    resolver: corpusResolver,
    plugins: [inspector(inspections)],
    // Shared by test runs: the lists are parsed once per machine, later runs load the engine.
    adBlocking: { cacheDir: path.join(os.tmpdir(), 'capture-engine-test-adblock') },
    ...options,
  });
  return {
    server,
    engine,
    inspections,
    close: async () => {
      await engine.close();
      await server.close();
    },
  };
}

export interface Shot {
  image: DecodedImage;
  height: number;
  inspection: PageInspection | undefined;
}

let marker = 0;

export async function shoot(
  corpus: Corpus,
  page: CorpusPage,
  flags: { block_ads?: boolean; block_trackers?: boolean; block_chats?: boolean; block_cookies?: boolean; hide_selectors?: string; full_page?: boolean } = {},
): Promise<Shot> {
  const url = `${corpus.server.url(page.host, page.path)}#shot-${++marker}`;
  const result = await corpus.engine.capture({
    url,
    viewport_width: VIEWPORT.width,
    viewport_height: VIEWPORT.height,
    delay: page.delay,
    wait_until: page.waitUntil ?? 'domcontentloaded',
    ...flags,
  });
  const data = await result.buffer();
  return { image: await decode(data), height: result.height ?? 0, inspection: corpus.inspections.get(url) };
}

export function colourAt(shot: Shot, [x, y]: Point): string {
  const [r, g, b] = shot.image.at(x, y);
  return `rgb(${r},${g},${b})`;
}

export const isContent = (shot: Shot, point: Point): boolean => near(shot.image.at(point[0], point[1]), COLOURS.content);
export const isBanner = (shot: Shot, point: Point): boolean => near(shot.image.at(point[0], point[1]), COLOURS.banner, 20);
export const isAd = (shot: Shot, point: Point): boolean => near(shot.image.at(point[0], point[1]), COLOURS.ad, 20);
