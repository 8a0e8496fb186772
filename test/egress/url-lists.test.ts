import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine } from '../../src/index.js';
import { compileUrlLists, MAX_URL_LIST_LENGTH } from '../../src/egress/url-lists.js';
import { createTestEngine } from '../helpers/engine.js';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, near } from '../helpers/pixels.js';

/**
 * The operator's URL allow and deny lists (Gotenberg's --chromium-allow-list and --chromium-deny-list)
 * on top of the egress guard: on the target, redirects and every request of the page.
 */
let fixtures: FixtureServer;
let engine: CaptureEngine;
const box = (colour: string) => (_req: unknown, res: import('node:http').ServerResponse) => html(res, `<body style="margin:0;height:100vh;background:${colour}"></body>`);
beforeAll(async () => {
  fixtures = await startFixtureServer({
    // Two frames: the allowed one green, the other would be red.
    '/page': (_req, res) => html(res, '<body style="margin:0;display:flex;background:#0000ff"><iframe src="/allowed" style="border:0;width:100px;height:100px"></iframe><iframe src="/denied" style="border:0;width:100px;height:100px"></iframe></body>'),
    '/allowed': box('#00ff00'),
    '/denied': box('#ff0000'),
    '/to-denied': (_req, res) => res.writeHead(302, { Location: '/denied' }).end(),
  });
  const origin = fixtures.origin.replaceAll('.', '\\.');
  engine = await createTestEngine({ timeoutMs: 8000, urlAllowList: `^${origin}/`, urlDenyList: '/denied' });
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
});

describe('URL allow and deny lists', () => {
  it('refuse a request of the page the deny list matches, which never reaches the server; the others load', async () => {
    const before = fixtures.hits('/denied');
    const shot = await engine.capture({ url: fixtures.url('/page'), viewport_width: 300, viewport_height: 100 });
    const image = await decode(shot.data as Buffer);
    expect(near(image.at(50, 50), '#00ff00')).toBe(true);
    expect(near(image.at(150, 50), '#ff0000')).toBe(false);
    expect(fixtures.hits('/denied')).toBe(before);
  });

  it('refuse a target before the capture, and a redirect to a refused URL, as URL_NOT_ALLOWED', async () => {
    await expect(engine.capture({ url: fixtures.url('/denied') })).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
    await expect(engine.capture({ url: 'http://localhost:9/' })).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
    await expect(engine.capture({ url: fixtures.url('/to-denied') })).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED', details: { url: fixtures.url('/denied') } });
  });

  it('are asked before intercept: a refused URL is not answered', async () => {
    const shot = await engine.capture({ url: fixtures.url('/page'), viewport_width: 300, viewport_height: 100, intercept: [{ pattern: '*/denied', content_type: 'text/html', body: '<body style="margin:0;height:100vh;background:#ffff00"></body>' }] });
    expect(near((await decode(shot.data as Buffer)).at(150, 50), '#ffff00')).toBe(false);
  });

  it("never refuse a document's own address, which the allow list does not name", async () => {
    const shot = await engine.capture({ html: '<body style="margin:0;height:100vh;background:#00ff00"></body>', viewport_width: 200, viewport_height: 100 });
    expect(near((await decode(shot.data as Buffer)).at(100, 50), '#00ff00')).toBe(true);
  });
});

describe('compiling the lists', () => {
  it('matches in time linear in the URL, whatever the expression (RE2: no catastrophic backtracking)', () => {
    const lists = compileUrlLists({ deny: '^(a+)+$' });
    // A backtracking engine would not answer this within the test's lifetime.
    expect(lists.refuses(`${'a'.repeat(100_000)}!`)).toBe(false);
    expect(lists.refuses('aaaa')).toBe(true);
  });

  it('stops the engine at start, naming the option, for an expression RE2 cannot read or one too long', async () => {
    expect(() => compileUrlLists({ deny: '^file:(?!//tmp/)' })).toThrow(/urlDenyList.*RE2/);
    expect(() => compileUrlLists({ allow: 'a'.repeat(MAX_URL_LIST_LENGTH + 1) })).toThrow(/urlAllowList.*at most 4096/);
    await expect(createTestEngine({ urlAllowList: '(' })).rejects.toThrow(/urlAllowList/);
  });

  it('is inactive without lists', () => {
    expect(compileUrlLists({}).active).toBe(false);
    expect(compileUrlLists({ allow: '^https://' }).refuses('http://example.com/')).toBe(true);
  });
});
