import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine, CaptureInput } from '../../src/index.js';
import { OUTPUT_LIMITS, type MetadataAnswer, type ScrapeAnswer } from '../../src/index.js';
import { startHostileServer } from '../../fixtures/hostile/pages.js';
import { createTestEngine } from '../helpers/engine.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { articleMarkdown, constructsMarkdown, CONTENT_ROUTES, expectedLinks, FORM_ARIA } from './page-content-fixtures.js';

/** What a settled page says, from the library: engine.capture({ url, format: 'markdown' }) and the others. */
let fixtures: FixtureServer;
let engine: CaptureEngine;

beforeAll(async () => {
  fixtures = await startFixtureServer(CONTENT_ROUTES);
  engine = await createTestEngine();
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
});

const read = async (params: CaptureInput): Promise<{ text: string; contentType: string; incomplete?: string[] }> => {
  const result = await engine.capture(params);
  expect(result.text).toBe((await result.buffer()).toString('utf8'));
  return { text: result.text as string, contentType: result.contentType, incomplete: result.incomplete };
};
const json = async (params: CaptureInput): Promise<Record<string, unknown>> => JSON.parse((await read(params)).text) as Record<string, unknown>;

describe('what a settled page says (library)', () => {
  it('format=markdown, content=full: a table, nested and task lists, code with its language, links made absolute; scripts, styles, hidden elements and hide_selectors left out', async () => {
    const { text, contentType } = await read({ url: fixtures.url('/constructs'), format: 'markdown', content: 'full', hide_selectors: '#hide-me' });
    expect(contentType).toBe('text/markdown; charset=utf-8');
    expect(text).toBe(constructsMarkdown(fixtures.origin));
  });

  it('format=markdown picks the article (its own h1 kept) and leaves the nav and the footer out', async () => {
    const { text } = await read({ url: fixtures.url('/article'), format: 'markdown' });
    expect(text).toBe(articleMarkdown(fixtures.origin));
    const full = await read({ url: fixtures.url('/article'), format: 'markdown', content: 'full' });
    expect(full.text).toContain(`[About us](${fixtures.origin}/about)`);
    expect(full.text).toContain('Copyright Orchard Notes');
  });

  it('format=html is the whole rendered document with its doctype, or the article with content=main; format=text the visible text', async () => {
    const whole = await read({ url: fixtures.url('/constructs'), format: 'html', content: 'full' });
    expect(whole.contentType).toBe('text/html; charset=utf-8');
    expect(whole.text.startsWith('<!DOCTYPE html>\n<html>')).toBe(true);
    expect(whole.text).toContain('window.ignored = 1;');
    const main = await read({ url: fixtures.url('/article'), format: 'html' });
    expect(main.text).toContain('<h1>Pruning apple trees</h1>');
    expect(main.text).not.toContain('About us');
    const { text, contentType } = await read({ url: fixtures.url('/constructs'), format: 'text' });
    expect(contentType).toBe('text/plain; charset=utf-8');
    expect(text).toContain('Hidden by the caller');
    expect(text).not.toContain('Hidden text');
    expect(text).not.toContain('window.ignored');
  });

  it('format=links: every <a href> absolute, first of each URL, fragment-only and javascript: left out; links_selector scopes it', async () => {
    expect(await json({ url: fixtures.url('/links'), format: 'links' })).toEqual({ links: expectedLinks(fixtures.origin) });
    expect(await json({ url: fixtures.url('/links'), format: 'links', links_selector: '#menu' })).toEqual({ links: expectedLinks(fixtures.origin).slice(0, 2) });
  });

  it('format=metadata: Open Graph, Twitter, two JSON-LD blocks, three icons, a feed, absolute URLs, the headers with the cookie redacted', async () => {
    const origin = fixtures.origin;
    const metadata = await json({ url: fixtures.url('/metadata'), format: 'metadata' });
    expect(metadata).toMatchObject({
      title: 'Le verger',
      description: 'Notes from the orchard',
      canonical: `${origin}/canonical-page`,
      lang: 'fr',
      open_graph: { title: 'Orchard OG', image: `${origin}/og.png`, type: 'article' },
      twitter: { card: 'summary_large_image', image: `${origin}/img/tw.png` },
      json_ld: [
        { '@context': 'https://schema.org', '@type': 'Article', headline: 'Orchard' },
        { '@context': 'https://schema.org', '@type': 'BreadcrumbList', itemListElement: [] },
      ],
      icons: [
        { url: `${origin}/favicon.ico`, rel: 'icon', sizes: '32x32', type: null },
        { url: `${origin}/icon.svg`, rel: 'icon', sizes: null, type: 'image/svg+xml' },
        { url: `${origin}/apple.png`, rel: 'apple-touch-icon', sizes: '180x180', type: null },
      ],
      feeds: [{ url: `${origin}/feed.xml`, type: 'application/rss+xml', title: 'Feed' }],
      status: 200,
      final_url: `${origin}/metadata`,
      fonts: [],
    });
    const headers = metadata.headers as Record<string, string>;
    expect(headers['x-served-by']).toBe('fixtures');
    expect(JSON.stringify(headers)).not.toContain('secret-value');
  });

  it('format=aria: the ARIA snapshot of the page, or of one element with selector', async () => {
    const page = await read({ url: fixtures.url('/form'), format: 'aria' });
    expect(page.contentType).toBe('text/yaml; charset=utf-8');
    expect(page.text).toBe(`- heading "Sign up" [level=1]\n- text: Email\n${FORM_ARIA}\n- paragraph: Outside the form`);
    const form = await read({ url: fixtures.url('/form'), format: 'aria', selector: 'form' });
    expect(form.text).toBe(`- text: Email\n${FORM_ARIA}`);
    await expect(engine.capture({ url: fixtures.url('/form'), format: 'aria', selector: '#missing' })).rejects.toMatchObject({ code: 'ELEMENT_NOT_FOUND' });
  });

  it('format=scrape: each selector\'s elements with their text, HTML, attributes and box', async () => {
    const answer = await json({ url: fixtures.url('/table'), format: 'scrape', scrape: '[{"selector":"tr.row","attributes":["data-sku"]},{"selector":"#prices td:first-child"}]' });
    const [rows, cells] = answer.results as [ScrapeAnswer['results'][number], ScrapeAnswer['results'][number]];
    expect(rows.selector).toBe('tr.row');
    expect(rows.elements.map(({ text, html, attributes }) => ({ text, html, attributes }))).toEqual([
      { text: 'Apple\t1.20', html: '<td>Apple</td><td>1.20</td>', attributes: { 'data-sku': 'a1' } },
      { text: 'Pear\t0.90', html: '<td>Pear</td><td>0.90</td>', attributes: { 'data-sku': 'p2' } },
    ]);
    expect(rows.elements.map(({ box }) => [box.x, box.y, box.height])).toEqual([
      [0, 0, 20],
      [0, 20, 20],
    ]);
    expect(cells.elements.map(({ text, attributes }) => [text, attributes])).toEqual([
      ['Apple', {}],
      ['Pear', {}],
    ]);
    await expect(engine.capture({ url: fixtures.url('/table'), format: 'scrape', scrape: '[{"selector":"tr["}]' })).rejects.toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'scrape[0].selector' } });
  });

  it('works on a document given as html', async () => {
    const { text } = await read({ html: '<h1>Given</h1><ul><li>one</li><li>two</li></ul>', format: 'markdown', content: 'full' });
    expect(text).toBe('# Given\n\n-   one\n-   two\n');
  });

  // 200,000 rather than a million: a million anchors crash the renderer by themselves, a png of the page too.
  it('bounds: 200,000 links answer the first 10,000, flagged', async () => {
    const links = await read({ url: fixtures.url('/many-links?count=200000'), format: 'links' });
    const answer = JSON.parse(links.text) as { links: { url: string }[]; truncated: boolean };
    expect(answer.links).toHaveLength(OUTPUT_LIMITS.maxLinks);
    expect(answer.truncated).toBe(true);
    expect(answer.links[9_999]?.url).toBe(`${fixtures.origin}/l/9999`);
    expect(links.incomplete).toEqual(['links']);
  });

  // Issue 52: a page's metadata crosses to the service at its caps, however large the page makes it.
  it('bounds: metadata of a 4 MB document.title and of megabytes of head answers each string and list at its cap, flagged', async () => {
    const hostile = await startHostileServer();
    try {
      const title = await read({ url: hostile.url('dom-huge-title'), format: 'metadata' });
      expect(JSON.parse(title.text)).toMatchObject({ title: 'T'.repeat(OUTPUT_LIMITS.maxMetadataText), truncated: true });
      expect(title.incomplete).toEqual(['metadata']);
    } finally {
      await hostile.close();
    }
    const { text } = await read({ url: fixtures.url('/huge-head'), format: 'metadata' });
    const head = JSON.parse(text) as MetadataAnswer;
    expect([head.description?.length, head.canonical?.length, head.lang?.length, head.icons[0]?.url.length]).toEqual([OUTPUT_LIMITS.maxMetadataText, OUTPUT_LIMITS.maxMetadataUrl, OUTPUT_LIMITS.maxMetadataText, OUTPUT_LIMITS.maxMetadataUrl]);
    expect(Object.keys(head.open_graph)).toHaveLength(OUTPUT_LIMITS.maxMetadataProperties);
    expect(Object.keys(head.twitter)[0]).toHaveLength(OUTPUT_LIMITS.maxMetadataText);
    expect(head.truncated).toBe(true);
    // 100 properties of 10,000 characters cut at 2,000, and the rest at their caps: well under a megabyte.
    expect(text.length).toBeLessThan(300_000);
  });

  // Without a budget in all, twenty rules of 'div' over these nested divs would answer gigabytes.
  it('bounds: links and scrape stop at 5 M characters in all, flagged', async () => {
    const links = await read({ url: fixtures.url('/long-links'), format: 'links' });
    const linked = JSON.parse(links.text) as { links: unknown[]; truncated?: true };
    expect([linked.links.length > 0, linked.links.length < 1000, linked.truncated]).toEqual([true, true, true]);
    expect(links.text.length).toBeLessThan(OUTPUT_LIMITS.maxChars + 100_000);
    const scrape = await read({ url: fixtures.url('/deep-text'), format: 'scrape', scrape: JSON.stringify(Array.from({ length: 20 }, () => ({ selector: 'div' }))) });
    const scraped = JSON.parse(scrape.text) as ScrapeAnswer;
    expect([scraped.results.length, scraped.results[0]?.elements[0]?.html.length, scraped.truncated]).toEqual([20, OUTPUT_LIMITS.maxScrapeChars, true]);
    expect(scrape.text.length).toBeLessThan(OUTPUT_LIMITS.maxChars + 100_000);
  });

  it('bounds: text past 5 M characters is cut, flagged', async () => {
    const huge = await read({ url: fixtures.url('/huge-text?mb=12'), format: 'markdown', content: 'full' });
    expect(huge.text.length).toBe(OUTPUT_LIMITS.maxChars);
    expect(huge.incomplete).toEqual(['markdown']);
  });

  // Cut in the page, the snapshot stays under the bound; cut after it crossed, it would be the bound exactly (and all of it would have crossed first).
  it('bounds: the ARIA snapshot is cut in the page before it is taken, and the page put back for the next output', async () => {
    // 1,000 links of 20,000-character addresses: the links past the budget are left out whole.
    const links = await engine.capture({ url: fixtures.url('/long-links'), format: 'aria' });
    const yaml = (await links.buffer()).toString('utf8');
    expect([yaml.length < OUTPUT_LIMITS.maxChars, yaml.length > OUTPUT_LIMITS.maxChars / 2, links.incomplete]).toEqual([true, true, ['aria']]);
    expect(yaml.match(/- link "l"/g)?.length).toBeLessThan(250);
    // One paragraph of 6 MB: too long to cut in place (Chromium would lay it out again), a copy of its start stands in.
    const result = await engine.capture({ url: fixtures.url('/huge-text?mb=6'), viewport_width: 200, viewport_height: 100, outputs: 'aria,text', response_type: 'json' });
    const sidecar = (name: string): string => result.sidecarFiles?.find((file) => file.name === name)?.data.toString('utf8') ?? '';
    const [aria, text] = [sidecar('aria'), sidecar('text')];
    expect(aria.startsWith('- paragraph: word word')).toBe(true);
    expect(aria.length).toBeLessThan(70_000);
    expect(text.length).toBe(OUTPUT_LIMITS.maxChars);
    expect(result.incomplete).toEqual(['aria', 'text']);
  });

  it('refuses what does not apply, naming the parameter', async () => {
    const refused = (params: CaptureInput) => engine.capture({ url: fixtures.url('/article'), ...params });
    await expect(refused({ format: 'png', content: 'full' })).rejects.toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['content', 'format'] } });
    await expect(refused({ format: 'markdown', links_selector: 'nav' })).rejects.toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['links_selector', 'format'] } });
    await expect(refused({ format: 'links', scrape: '[{"selector":"a"}]' })).rejects.toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['scrape', 'format'] } });
    await expect(refused({ format: 'scrape' })).rejects.toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'scrape' } });
    await expect(refused({ format: 'scrape', scrape: 'not json' })).rejects.toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'scrape' } });
    await expect(refused({ format: 'markdown', selector: 'main' })).rejects.toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['selector', 'format'] } });
    await expect(refused({ outputs: 'markdown,pdfs', response_type: 'json' })).rejects.toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'outputs' } });
    await expect(refused({ outputs: 'markdown' })).rejects.toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['outputs', 'response_type'] } });
    await expect(refused({ format: 'mp4', outputs: 'links', response_type: 'json' })).rejects.toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['outputs', 'format'] } });
    await expect(refused({ format: 'markdown', scenario: 'scroll' })).rejects.toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['format', 'scenario'] } });
  });
});
