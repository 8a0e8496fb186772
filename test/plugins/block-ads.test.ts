import { createCaptureHttp } from '../../src/index.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Request } from '@ghostery/adblocker-playwright';
import { CORPUS, VIEWPORT, type CorpusPage } from '../../fixtures/corpus/manifest.js';
import { CHAT_HOSTS, TRACKER_HOSTS } from '../../fixtures/corpus/server.js';
import { ADAPTERS, startApp, type RunningApp } from '../helpers/adapters.js';
import { decode } from '../helpers/pixels.js';
import { findDefaultLists } from '../../plugins/block-ads/index.js';
import { loadEngine } from '../../plugins/block-ads/engine-cache.js';
import { colourAt, isAd, isContent, openCorpus, shoot, type Corpus } from './block-corpus.js';

const withAds = CORPUS.filter((page) => page.ads.length > 0);

const KEY = 'ce_test_pro_blocking_0123456789abcdef';

let corpus: Corpus;
beforeAll(async () => {
  corpus = await openCorpus();
});
afterAll(async () => {
  await corpus?.close();
});

describe('block_ads on the corpus', () => {
  // One capture at a time: the fixture server counts the ad requests of exactly one page.
  it.each(withAds.map((page) => [page.name, page] as const))('%s: ads shown without blocking, gone with it, never requested', async (_name, page) => {
    corpus.server.resetHits();
    const before = await shoot(corpus, page);
    const requested = corpus.server.adHits().length;
    corpus.server.resetHits();
    const after = await shoot(corpus, page, { block_ads: true });
    const leaked = corpus.server.adHits().map((hit) => `${hit.host}${hit.path}`);

    expect(requested, 'the page really loads ads without blocking').toBeGreaterThan(0);
    expect(leaked, 'blocked ad requests never reach the server').toEqual([]);
    for (const point of page.ads) {
      expect(isAd(before, point), `ad colour without blocking at ${point}, got ${colourAt(before, point)}`).toBe(true);
      expect(isContent(after, point), `content where the ad was at ${point}, got ${colourAt(after, point)}`).toBe(true);
    }
    // Blocking must not take the page with it: its own styles and text still load.
    expect(corpus.server.hits.some((hit) => hit.path === '/assets/site.css')).toBe(true);
    expect(isContent(after, [20, 600]), `page content intact, got ${colourAt(after, [20, 600])}`).toBe(true);
  });

  it('hide_selectors still applies with block_ads and block_cookies', async () => {
    const page = CORPUS.find((p) => p.name === 'ads-and-consent')!;
    const shot = await shoot(corpus, page, { block_ads: true, block_cookies: true, hide_selectors: 'header.site' });
    expect(isContent(shot, [640, 30]), `header hidden, got ${colourAt(shot, [640, 30])}`).toBe(true);
    for (const point of [...page.ads, page.banner!]) expect(isContent(shot, point), `clean at ${point}`).toBe(true);
  });

  it('leaves a page without ads as it was', async () => {
    const page = CORPUS.find((p) => p.name === 'plain')!;
    corpus.server.resetHits();
    const shot = await shoot(corpus, page, { block_ads: true });
    expect(isContent(shot, [1100, 400])).toBe(true);
    expect(corpus.server.hits.map((hit) => hit.path)).toContain('/assets/site.css');
  });
});

describe('block_trackers and block_chats on the corpus', () => {
  const page = (name: string, host: string): CorpusPage => ({ name, host, path: `/${name}.html`, cmp: null, layout: name, delay: 0, waitUntil: 'load', ads: [] });
  const kinds = (): string[] => corpus.server.hits.filter((hit) => hit.kind !== undefined).map((hit) => `${hit.kind} ${hit.host}`);

  it('block_trackers refuses the analytics and leaves the ad; block_ads refuses both', async () => {
    const tracked = page('tracked', 'shop.test');
    corpus.server.resetHits();
    await shoot(corpus, tracked);
    expect(new Set(kinds())).toEqual(new Set([...TRACKER_HOSTS.map((host) => `tracker ${host}`), 'ad securepubads.g.doubleclick.net']));
    corpus.server.resetHits();
    const shot = await shoot(corpus, tracked, { block_trackers: true });
    expect(kinds()).toEqual(['ad securepubads.g.doubleclick.net']);
    expect(isAd(shot, [1100, 300]), `the ad stays, got ${colourAt(shot, [1100, 300])}`).toBe(true);
    corpus.server.resetHits();
    await shoot(corpus, tracked, { block_ads: true, block_trackers: true });
    expect(kinds()).toEqual([]);
  });

  it('block_chats refuses the widgets\' loaders and hides a container the page rendered itself', async () => {
    const chats = page('support-chat', 'cloud.test');
    corpus.server.resetHits();
    const before = await shoot(corpus, chats);
    expect(new Set(kinds())).toEqual(new Set(CHAT_HOSTS.map((host) => `chat ${host}`)));
    expect(isAd(before, [1228, 748]) && isAd(before, [52, 748]), `bubbles without blocking, got ${colourAt(before, [1228, 748])} and ${colourAt(before, [52, 748])}`).toBe(true);
    corpus.server.resetHits();
    const after = await shoot(corpus, chats, { block_chats: true });
    expect(kinds()).toEqual([]);
    expect(isContent(after, [1228, 748]) && isContent(after, [52, 748]), `no bubbles, got ${colourAt(after, [1228, 748])} and ${colourAt(after, [52, 748])}`).toBe(true);
  });
});

describe.each(ADAPTERS)('block_ads and block_cookies over HTTP on %s', (adapter) => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp(adapter, createCaptureHttp(corpus.engine, { apiKeys: [{ key: KEY, tier: 'PRO' }], tiers: { PRO: { requestsPerMinute: 1000 } } }));
  });
  afterAll(async () => {
    await app?.close();
  });

  it('GET with both flags returns a clean page', async () => {
    const page = CORPUS.find((p) => p.name === 'ads-and-consent')!;
    const query = new URLSearchParams({
      url: corpus.server.url(page.host, page.path),
      viewport_width: String(VIEWPORT.width),
      viewport_height: String(VIEWPORT.height),
      delay: String(page.delay),
      wait_until: 'load',
      block_ads: 'true',
      block_cookies: '1',
      api_key: KEY,
    });
    const response = await fetch(`${app.origin}/api/v1/capture?${query}`);
    expect(response.status).toBe(200);
    const shot = { image: await decode(Buffer.from(await response.arrayBuffer())), height: VIEWPORT.height, inspection: undefined, ms: 0 };
    for (const point of [...page.ads, page.banner!]) expect(isContent(shot, point), `clean at ${point}, got ${colourAt(shot, point)}`).toBe(true);
  });
});

describe('the blocking engine', () => {
  const dirs: string[] = [];
  const tempDir = (): string => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'capture-engine-adblock-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('finds EasyList and EasyPrivacy from Debian by itself', () => {
    const lists = findDefaultLists();
    expect(lists?.map((file) => path.basename(file))).toEqual(['easylist.txt', 'easyprivacy.txt']);
  });

  it('parses configured lists once, then loads the serialized engine from its cache', async () => {
    const dir = tempDir();
    const list = path.join(dir, 'house-rules.txt');
    writeFileSync(list, '||tracker.house.test^\n##.house-ad\n');
    const source = { lists: [list], cacheDir: path.join(dir, 'cache'), maxListAgeMs: 60_000, fetch: globalThis.fetch };
    const first = await loadEngine(source);
    const second = await loadEngine(source);
    expect(first.origin).toBe('parsed');
    expect(second.origin).toBe('cache');
    const request = Request.fromRawDetails({ url: 'http://tracker.house.test/pixel.gif', type: 'image', sourceUrl: 'http://site.test/' });
    expect(second.blocker.match(request).match).toBe(true);
    // A changed list is a different engine: the cache key follows the lists.
    writeFileSync(list, '##.house-ad\n');
    const third = await loadEngine(source);
    expect(third.origin).toBe('parsed');
    expect(third.blocker.match(request).match).toBe(false);
  });

  it('downloads list URLs once, then works from the cached copy even when the server is gone', async () => {
    let served = 0;
    const listServer = createServer((_req, res) => {
      served++;
      res.end('||beacon.house.test^\n');
    });
    await new Promise<void>((resolve) => listServer.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(listServer.address() as AddressInfo).port}/house.txt`;
    const dir = tempDir();
    const source = { lists: [url], cacheDir: dir, maxListAgeMs: 60_000, fetch: globalThis.fetch };
    const first = await loadEngine(source);
    const second = await loadEngine(source);
    await new Promise<void>((resolve) => listServer.close(() => resolve()));
    // Stale now, and the server is down: the last good copy keeps blocking working.
    const stale = await loadEngine({ ...source, maxListAgeMs: 0 });
    expect(served).toBe(1);
    expect([first.origin, second.origin, stale.origin]).toEqual(['parsed', 'cache', 'cache']);
    const request = Request.fromRawDetails({ url: 'http://beacon.house.test/b.js', type: 'script', sourceUrl: 'http://site.test/' });
    expect(stale.blocker.match(request).match).toBe(true);
  });

  it('loads the default lists from the serialized cache, not by parsing them again', async () => {
    const source = { cacheDir: path.join(os.tmpdir(), 'capture-engine-test-adblock'), maxListAgeMs: 60_000, fetch: globalThis.fetch };
    await loadEngine(source); // parses only on a machine's first run
    const cached = await loadEngine(source);
    expect(cached.origin).toBe('cache');
  });
});
