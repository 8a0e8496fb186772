import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderLink } from '../../src/index.js';
import { createCaptureClient } from '../../src/client/index.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { isBuilt, killLeftoverBuiltProcesses, type BuiltService } from '../helpers/built-service.js';
import type { Account } from '../helpers/key-cli.js';
import { startKeyedService, type KeyedService } from '../helpers/keyed-service.js';
import { decode, MAGIC } from '../helpers/pixels.js';
import { articleMarkdown, constructsMarkdown, CONTENT_ROUTES, expectedLinks, FORM_ARIA } from '../plugins/page-content-fixtures.js';

// A test that fails before stopping its service leaves it running: kill what is left.
afterAll(killLeftoverBuiltProcesses);

/** What a settled page says, over HTTP on the built service (npm start): formats, outputs= sidecars, a cached render link. */
let fixtures: FixtureServer;
let keyed: KeyedService;
let service: BuiltService;
let account: Account;
/** Another tenant, for what one key's cached files are to another. */
let other: Account;

beforeAll(async () => {
  if (!isBuilt()) return;
  fixtures = await startFixtureServer(CONTENT_ROUTES);
  keyed = await startKeyedService('page-content-http', { tiers: ['PRO', 'PRO'] });
  service = keyed.service;
  [account, other] = keyed.accounts as [Account, Account];
});
afterAll(async () => {
  await keyed?.close();
  await fixtures?.close();
});

const capture = (params: Record<string, string>): Promise<Response> => fetch(`${service.origin}/api/v1/capture?${new URLSearchParams(params)}`, { headers: { 'X-API-Key': account.key } });
const file = (url: string): Promise<Response> => fetch(new URL(url, service.origin), { headers: { 'X-API-Key': account.key } });

describe.skipIf(!isBuilt())('what a settled page says, over HTTP (npm start)', () => {
  it('format=markdown answers the expected Markdown as text/markdown', async () => {
    const constructs = await capture({ url: fixtures.url('/constructs'), format: 'markdown', content: 'full', hide_selectors: '#hide-me' });
    expect(constructs.status).toBe(200);
    expect(constructs.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(await constructs.text()).toBe(constructsMarkdown(fixtures.origin));
    const article = await capture({ url: fixtures.url('/article'), format: 'markdown' });
    expect(await article.text()).toBe(articleMarkdown(fixtures.origin));
  });

  it('format=links, metadata, aria, scrape and html answer their JSON, YAML and sandboxed HTML', async () => {
    const links = await capture({ url: fixtures.url('/links'), format: 'links' });
    expect(links.headers.get('content-type')).toBe('application/json');
    expect(await links.json()).toEqual({ links: expectedLinks(fixtures.origin) });
    const metadata = (await (await capture({ url: fixtures.url('/metadata'), format: 'metadata' })).json()) as { json_ld: unknown[]; icons: unknown[]; open_graph: Record<string, string> };
    expect([metadata.json_ld.length, metadata.icons.length, metadata.open_graph.image]).toEqual([2, 3, `${fixtures.origin}/og.png`]);
    const aria = await capture({ url: fixtures.url('/form'), format: 'aria', selector: 'form' });
    expect(aria.headers.get('content-type')).toBe('text/yaml; charset=utf-8');
    expect(await aria.text()).toBe(`- text: Email\n${FORM_ARIA}`);
    const scrape = (await (await capture({ url: fixtures.url('/table'), format: 'scrape', scrape: '[{"selector":"td:first-child"}]' })).json()) as { results: { elements: { text: string }[] }[] };
    expect(scrape.results[0]?.elements.map(({ text }) => text)).toEqual(['Apple', 'Pear']);
    const html = await capture({ url: fixtures.url('/article'), format: 'html', content: 'full' });
    expect(html.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
    expect(await html.text()).toContain('<nav><a href="/">Home</a>');
  });

  it('outputs=markdown,links,metadata beside a png: four files from one navigation, each at its <name>_url', async () => {
    const before = fixtures.hits('/article');
    const answer = await capture({ url: fixtures.url('/article'), viewport_width: '400', viewport_height: '300', outputs: 'markdown,links,metadata', response_type: 'json' });
    const body = (await answer.json()) as Record<'url' | 'markdown_url' | 'links_url' | 'metadata_url', string>;
    expect(answer.status, JSON.stringify(body)).toBe(200);
    expect(fixtures.hits('/article') - before).toBe(1);
    const png = Buffer.from(await (await file(body.url)).arrayBuffer());
    expect(png.subarray(0, 8)).toEqual(MAGIC.png);
    expect((await decode(png)).width).toBe(400);
    const markdown = await file(body.markdown_url);
    expect(markdown.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(await markdown.text()).toBe(articleMarkdown(fixtures.origin));
    const links = (await (await file(body.links_url)).json()) as { links: { url: string }[] };
    expect(links.links.map(({ url }) => url)).toContain(`${fixtures.origin}/guides/tools.html`);
    expect(((await (await file(body.metadata_url)).json()) as { title: string }).title).toBe('Pruning apple trees | Orchard Notes');
  });

  it('outputs= works with a document given as html or Markdown (POST JSON) or as uploaded files', async () => {
    const answer = await fetch(`${service.origin}/api/v1/capture`, {
      method: 'POST',
      headers: { 'X-API-Key': account.key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ html: '<h1>Given</h1><p>See <a href="https://example.com/a">a</a>.</p>', viewport_width: 300, viewport_height: 200, outputs: 'markdown,links', response_type: 'json' }),
    });
    const body = (await answer.json()) as Record<'url' | 'markdown_url' | 'links_url', string>;
    expect(answer.status, JSON.stringify(body)).toBe(200);
    expect(await (await file(body.markdown_url)).text()).toBe('# Given\n\nSee [a](https://example.com/a).\n');
    expect(await (await file(body.links_url)).json()).toEqual({ links: [{ url: 'https://example.com/a', text: 'a', rel: null, same_origin: false }] });
    // Given as Markdown, and as uploaded files (multipart): the same sidecars of the rendered page.
    const given = async (body: string | FormData): Promise<Record<'markdown_url' | 'links_url', string>> => {
      const response = await fetch(`${service.origin}/api/v1/capture`, { method: 'POST', headers: { 'X-API-Key': account.key, ...(typeof body === 'string' ? { 'Content-Type': 'application/json' } : {}) }, body });
      const answer = (await response.json()) as Record<'markdown_url' | 'links_url', string>;
      expect(response.status, JSON.stringify(answer)).toBe(200);
      return answer;
    };
    const fromMarkdown = await given(JSON.stringify({ markdown: '# Given\n\nSee [b](https://example.com/b).', outputs: 'markdown,links', response_type: 'json' }));
    expect(await (await file(fromMarkdown.markdown_url)).text()).toBe('# Given\n\nSee [b](https://example.com/b).\n');
    const form = new FormData();
    for (const [name, value] of Object.entries({ outputs: 'links', response_type: 'json' })) form.append(name, value);
    form.append('files', new Blob(['<a href="page2.html">next</a>'], { type: 'text/html' }), 'index.html');
    const fromFiles = await given(form);
    expect(await (await file(fromFiles.links_url)).json()).toEqual({ links: [{ url: 'https://document.capture-engine.invalid/page2.html', text: 'next', rel: null, same_origin: true }] });
  });

  it('a render link to a page\'s Markdown is cached: the second answer is X-Cache: HIT without loading the page again', async () => {
    const link = renderLink({ baseUrl: service.origin, key: account.id, signingSecret: account.signingSecret, params: { url: fixtures.url('/constructs'), format: 'markdown', content: 'full' } });
    const before = fixtures.hits('/constructs');
    const first = await fetch(link);
    expect([first.status, first.headers.get('x-cache'), first.headers.get('content-type')]).toEqual([200, 'MISS', 'text/markdown; charset=utf-8']);
    const text = await first.text();
    const second = await fetch(link);
    expect([second.status, second.headers.get('x-cache')]).toEqual([200, 'HIT']);
    expect(await second.text()).toBe(text);
    expect(fixtures.hits('/constructs') - before).toBe(1);
  });

  it('outputs= with cache=true caches the sidecars with the png: the second request is X-Cache: HIT with the same files, from one navigation; another key reads none of them', async () => {
    const params = { url: fixtures.url('/links'), viewport_width: '300', viewport_height: '200', outputs: 'markdown,links', response_type: 'json', cache: 'true' };
    const before = fixtures.hits('/links');
    const first = await capture(params);
    const firstBody = (await first.json()) as Record<'url' | 'markdown_url' | 'links_url', string>;
    expect([first.status, first.headers.get('x-cache')], JSON.stringify(firstBody)).toEqual([200, 'MISS']);
    const second = await capture(params);
    expect([second.status, second.headers.get('x-cache')]).toEqual([200, 'HIT']);
    const secondBody = (await second.json()) as typeof firstBody;
    expect([secondBody.url, secondBody.markdown_url, secondBody.links_url]).toEqual([firstBody.url, firstBody.markdown_url, firstBody.links_url]);
    expect(fixtures.hits('/links') - before).toBe(1);
    expect(await (await file(secondBody.links_url)).json()).toEqual({ links: expectedLinks(fixtures.origin) });
    expect((await file(secondBody.markdown_url)).headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    // Cached files are their owner's: another key, or none, gets a 404 for each.
    for (const url of [secondBody.url, secondBody.markdown_url, secondBody.links_url]) {
      const statuses = [(await fetch(new URL(url, service.origin), { headers: { 'X-API-Key': other.key } })).status, (await fetch(new URL(url, service.origin))).status];
      expect(statuses, url).toEqual([404, 404]);
    }
  });

  it('the typed client answers each format typed: Markdown as text, links and metadata as their JSON', async () => {
    const client = createCaptureClient({ baseUrl: service.origin, apiKey: account.key });
    const markdown: string = await client.content('markdown', { url: fixtures.url('/article') });
    expect(markdown).toBe(articleMarkdown(fixtures.origin));
    const { links } = await client.content('links', { url: fixtures.url('/links') });
    expect(links).toEqual(expectedLinks(fixtures.origin));
    const { twitter, feeds } = await client.content('metadata', { url: fixtures.url('/metadata') });
    expect([twitter.card, feeds[0]?.url]).toEqual(['summary_large_image', `${fixtures.origin}/feed.xml`]);
  });

  it('refuses what does not apply with the catalogue code naming the parameter', async () => {
    const refusal = async (params: Record<string, string>): Promise<unknown> => {
      const response = await capture({ url: fixtures.url('/article'), ...params });
      return [response.status, await response.json()];
    };
    expect(await refusal({ outputs: 'markdown' })).toEqual([400, expect.objectContaining({ code: 'INCOMPATIBLE_PARAMETERS', params: ['outputs', 'response_type'] })]);
    expect(await refusal({ outputs: 'screenshot', response_type: 'json' })).toEqual([400, expect.objectContaining({ code: 'INVALID_PARAMETER', param: 'outputs' })]);
    expect(await refusal({ format: 'png', content: 'full' })).toEqual([400, expect.objectContaining({ code: 'INCOMPATIBLE_PARAMETERS', params: ['content', 'format'] })]);
    expect(await refusal({ format: 'scrape' })).toEqual([400, expect.objectContaining({ code: 'INVALID_PARAMETER', param: 'scrape' })]);
  });
});
