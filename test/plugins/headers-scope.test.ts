import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine } from '../../src/index.js';
import { MAX_HEADER_SCOPE_PATTERNS } from '../../src/core/schema/header-scope-params.js';
import { parseCaptureParams } from '../../src/core/schema/capture-params.js';
import { createTestEngine } from '../helpers/engine.js';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';

/** headers with a URL scope (Gotenberg's per-header `scope` of extraHttpHeaders). */
let fixtures: FixtureServer;
let engine: CaptureEngine;
/** The X-Capture-Test header each path was last requested with, and its X-Second. */
const seen = new Map<string, string | undefined>();
const seenSecond = new Map<string, string | undefined>();
const record = (path: string, headers: Record<string, string | string[] | undefined>): void => {
  seen.set(path, headers['x-capture-test'] as string | undefined);
  seenSecond.set(path, headers['x-second'] as string | undefined);
};
beforeAll(async () => {
  fixtures = await startFixtureServer({
    // The page on 127.0.0.1 loads two images from localhost, a third party to it.
    '/page': (req, res) => {
      record('/page', req.headers);
      const port = new URL(fixtures.origin).port;
      html(res, `<body><img src="http://localhost:${port}/api/a.png"><img src="http://localhost:${port}/cdn/b.png"></body>`);
    },
    '/api/a.png': (req, res) => void (record('/api/a.png', req.headers), res.writeHead(404).end()),
    '/cdn/b.png': (req, res) => void (record('/cdn/b.png', req.headers), res.writeHead(404).end()),
  });
  engine = await createTestEngine({ timeoutMs: 8000 });
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
});

const capture = async (extra: Record<string, unknown>): Promise<Record<string, string | undefined>> => {
  seen.clear();
  await engine.capture({ url: fixtures.url('/page'), viewport_width: 200, viewport_height: 100, headers: { 'X-Capture-Test': 'yes' }, ...extra });
  return Object.fromEntries(['/page', '/api/a.png', '/cdn/b.png'].map((path) => [path, seen.get(path)]));
};

describe('headers_scope', () => {
  it("without it, headers go to the target's origin only", async () => {
    expect(await capture({})).toEqual({ '/page': 'yes', '/api/a.png': undefined, '/cdn/b.png': undefined });
  });

  it('with it, to the requests its patterns match only', async () => {
    const port = new URL(fixtures.origin).port;
    expect(await capture({ headers_scope: `http://localhost:${port}/api/*` })).toEqual({ '/page': undefined, '/api/a.png': 'yes', '/cdn/b.png': undefined });
    expect(await capture({ headers_scope: `${fixtures.origin}/*, http://localhost:${port}/cdn/*` })).toEqual({ '/page': 'yes', '/api/a.png': undefined, '/cdn/b.png': 'yes' });
  });

  it('per header (an object, or its JSON in a query): each named header to its own patterns, any other to the origin only', async () => {
    const port = new URL(fixtures.origin).port;
    const headers = { 'X-Capture-Test': 'yes', 'X-Second': 'two' };
    const paths = ['/page', '/api/a.png', '/cdn/b.png'];
    const second = (): (string | undefined)[] => paths.map((path) => seenSecond.get(path));
    // Names in any case, as HTTP header names are.
    expect(await capture({ headers, headers_scope: { 'x-capture-test': `http://localhost:${port}/api/*` } })).toEqual({ '/page': undefined, '/api/a.png': 'yes', '/cdn/b.png': undefined });
    expect(second()).toEqual(['two', undefined, undefined]);
    expect(await capture({ headers, headers_scope: JSON.stringify({ 'X-Second': `http://localhost:${port}/*`, 'X-Capture-Test': `http://localhost:${port}/cdn/*, ${fixtures.origin}/*` }) })).toEqual({ '/page': 'yes', '/api/a.png': undefined, '/cdn/b.png': 'yes' });
    expect(second()).toEqual([undefined, 'two', 'two']);
  });

  it(`is refused without headers, with more than ${MAX_HEADER_SCOPE_PATTERNS} patterns, or none, and per header for a header not given`, () => {
    const url = 'https://example.com/';
    const headers = { 'X-A': '1' };
    expect(() => parseCaptureParams({ url, headers_scope: 'https://*' })).toThrow(expect.objectContaining({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['headers_scope', 'headers'] } }));
    const many = Array.from({ length: MAX_HEADER_SCOPE_PATTERNS + 1 }, (_, i) => `https://h${i}.example/*`).join(',');
    expect(() => parseCaptureParams({ url, headers, headers_scope: many })).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETER', details: expect.objectContaining({ param: 'headers_scope' }) }));
    expect(() => parseCaptureParams({ url, headers, headers_scope: ' , ' })).toThrow(expect.objectContaining({ details: expect.objectContaining({ param: 'headers_scope' }) }));
    expect(() => parseCaptureParams({ url, headers, headers_scope: 'x'.repeat(2049) })).toThrow(expect.objectContaining({ details: expect.objectContaining({ param: 'headers_scope' }) }));
    // Per header: only headers given, each scope bounded as the single one, at most 20 names.
    const refusedAs = (headers_scope: unknown, param: string) => expect(() => parseCaptureParams({ url, headers, headers_scope }), JSON.stringify(headers_scope).slice(0, 50)).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETER', details: expect.objectContaining({ param }) }));
    refusedAs({ 'X-B': 'https://*' }, 'headers_scope.X-B');
    refusedAs({ 'X-A': many }, 'headers_scope');
    refusedAs({ 'X-A': ' , ' }, 'headers_scope');
    refusedAs({ 'X-A': 'x'.repeat(2049) }, 'headers_scope');
    refusedAs({}, 'headers_scope');
    refusedAs('{"X-A": ', 'headers_scope');
    refusedAs(Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-${i}`, 'https://*'])), 'headers_scope');
    expect(parseCaptureParams({ url, headers, headers_scope: '{"x-a": "https://a.example/*"}' }).headers_scope).toEqual({ 'x-a': 'https://a.example/*' });
  });
});
