import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine, CaptureInput } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';

const SECRET_HEADER = 'token-7f3a9c1e5b';
const SECRET_COOKIE = 'cookie-2d8e4b6a0c';

/**
 * diagnostics=true and har=true on a page that logs, loads, fails and is refused things, behind
 * the egress guard: the fixture server is the one address the guard lets through, as a public
 * site would be.
 */
let fixtures: FixtureServer;
let engine: CaptureEngine;
const port = (): number => Number(new URL(fixtures.origin).port);
const publicUrl = (path: string): string => `http://public.test:${port()}${path}`;

beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/moved': (_req, res) => res.writeHead(302, { Location: '/diagnosed' }).end(),
    '/diagnosed': (_req, res) =>
      html(
        res,
        `<body style="margin:0;height:100vh;background:#00ff00">
          <img src="/pixel.png"><img src="http://refused.test:${port()}/tracker.png"><img src="https://refused.test:${port()}/tunnel.png"><img src="http://nowhere.test:${port()}/gone.png">
          <script>console.log('ready'); console.error('widget broke'); console.log('cookie ' + document.cookie);
          fetch('/api/data').then(() => { throw new Error('late failure'); });</script></body>`,
      ),
    '/pixel.png': (_req, res) => res.writeHead(200, { 'Content-Type': 'image/svg+xml' }).end('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>'),
    '/api/data': (req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ echoed: req.headers['x-token'] ?? null })),
  });
  engine = await createTestEngine({
    allowPrivateNetworks: false,
    // public.test is the fixture server, refused.test a private address, nowhere.test nothing.
    resolver: async (host) => (host === 'public.test' ? ['127.0.0.1'] : host === 'refused.test' ? ['10.0.0.1'] : []),
    allowAddress: (address, port_) => address === '127.0.0.1' && port_ === port(),
  });
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
});

const capture = (params: Omit<CaptureInput, 'url'>) =>
  engine.capture({
    url: publicUrl('/moved'),
    viewport_width: 200,
    viewport_height: 100,
    response_type: 'json',
    headers: { 'X-Token': SECRET_HEADER },
    cookies: [{ name: 'session', value: SECRET_COOKIE }],
    ...params,
  });

describe('diagnostics and the HAR', () => {
  it('diagnostics=true: the document, its redirect, console and errors, failed requests, the waits', async () => {
    const result = await capture({ diagnostics: true });
    const diagnostics = result.diagnostics;
    expect(diagnostics?.document).toMatchObject({ url: publicUrl('/diagnosed'), status: 200 });
    expect(diagnostics?.document.timing.dom_content_loaded).toBeGreaterThan(0);
    expect(diagnostics?.redirects).toEqual([{ url: publicUrl('/moved'), status: 302 }]);
    expect(diagnostics?.console).toEqual(
      expect.arrayContaining([
        { type: 'log', text: 'ready' },
        { type: 'error', text: 'widget broke' },
        { type: 'pageerror', text: 'late failure' },
        { type: 'log', text: 'cookie session=[redacted]' },
      ]),
    );
    expect(diagnostics?.requests.failed).toEqual([{ url: `http://nowhere.test:${port()}/gone.png`, error: 'DNS_FAILED' }]);
    // Refused as plain http and as a tunnel (https): both the guard's refusal, not a network failure.
    expect(diagnostics?.requests.blocked).toEqual(
      expect.arrayContaining([
        { url: `http://refused.test:${port()}/tracker.png`, reason: 'URL_NOT_ALLOWED' },
        { url: `https://refused.test:${port()}/tunnel.png`, reason: 'URL_NOT_ALLOWED' },
      ]),
    );
    expect(diagnostics?.requests.blocked).toHaveLength(2);
    expect(diagnostics?.requests.counts.finished).toBeGreaterThanOrEqual(4);
    expect(diagnostics?.waits.map((wait) => [wait.name, wait.outcome])).toEqual([
      ['wait_until', 'met'],
      ['fonts', 'met'],
      ['settle', 'met'],
    ]);
    expect(JSON.stringify(diagnostics)).not.toContain(SECRET_COOKIE);
    expect(result.sidecars).toBeUndefined();
  });

  it('har=true: a HAR 1.2 stored beside the file, with the page\'s entries and the caller\'s secrets redacted', async () => {
    const result = await capture({ har: true });
    const har = result.sidecars?.har;
    expect(har?.key).toBe((result.storageKey as string).replace(/\.png$/, '-har.har'));
    const stored = await engine.storage?.get(har?.key as string);
    expect(stored?.contentType).toBe('application/json');
    const chunks: Buffer[] = [];
    for await (const chunk of stored?.stream() ?? []) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks);
    const log = JSON.parse(text.toString()).log;
    expect(log.version).toBe('1.2');
    expect(log.pages[0].title).toBe('');
    const byUrl = new Map(log.entries.map((entry: { request: { url: string } }) => [entry.request.url, entry]));
    expect(byUrl.get(publicUrl('/moved'))).toMatchObject({ response: { status: 302, redirectURL: '/diagnosed' } });
    expect(byUrl.get(publicUrl('/diagnosed'))).toMatchObject({ response: { status: 200, content: { mimeType: expect.stringContaining('text/html') } } });
    const api = byUrl.get(publicUrl('/api/data')) as { request: { headers: { name: string; value: string }[] }; response: { content: { size: number } }; timings: { wait: number } };
    expect(api.request.headers.find((header) => header.name.toLowerCase() === 'x-token')?.value).toBe('[redacted]');
    expect(api.response.content.size).toBeGreaterThan(0);
    expect(api.timings.wait).toBeGreaterThanOrEqual(0);
    expect(text.toString()).not.toContain(SECRET_HEADER);
    expect(text.toString()).not.toContain(SECRET_COOKIE);
  });

  it('refuses diagnostics and har without response_type=json, and with cache=true', async () => {
    await expect(capture({ diagnostics: true, response_type: 'image' })).rejects.toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', status: 400 });
    await expect(capture({ har: true, cache: true })).rejects.toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', status: 400 });
  });
});
