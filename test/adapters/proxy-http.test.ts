import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { isBuilt, startBuiltService, type BuiltService, killLeftoverBuiltProcesses } from '../helpers/built-service.js';
import { startHttpProxy, startSocksProxy, type CountingProxy } from '../helpers/counting-proxy.js';
import { decode, near } from '../helpers/pixels.js';

afterAll(killLeftoverBuiltProcesses);

/** `proxy`: a capture's page leaves through the caller's proxy or one the operator named, as `npm start` runs it. */

const PRO = 'ce_proxy_test_pro_0123456789abcdef';
const FREE = 'ce_proxy_test_free_0123456789abcde';
let fixtures: FixtureServer;
let service: BuiltService;
let httpProxy: CountingProxy;
let socksProxy: CountingProxy;
let named: CountingProxy;

beforeAll(async () => {
  fixtures = await startFixtureServer({
    // Green with its image loaded: the image comes through the proxy too.
    '/proxied': (_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<body style="margin:0;height:100vh;background:#ff0000">
        <img src="/proxied.svg" onload="document.body.style.background = '#00ff00'"></body>`),
    '/proxied.svg': (_req, res) => res.writeHead(200, { 'Content-Type': 'image/svg+xml' }).end('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'),
  });
  [httpProxy, socksProxy, named] = await Promise.all([startHttpProxy('alice', 's3cret-http'), startSocksProxy('bob', 's3cret-socks'), startHttpProxy('operator', 's3cret-named')]);
  service = await startBuiltService('fastify', {
    CAPTURE_API_KEYS: `${PRO}:PRO,${FREE}:FREE`,
    CAPTURE_ALLOW_PRIVATE_NETWORKS: 'true',
    CAPTURE_PROXIES: JSON.stringify({ counted: named.url }),
    CAPTURE_TIMEOUT_MS: '8000',
    CAPTURE_LOG_LEVEL: 'info',
  });
});
afterAll(async () => {
  await service?.stop();
  await Promise.all([fixtures?.close(), httpProxy?.close(), socksProxy?.close(), named?.close()]);
});

const capture = (query: Record<string, string>, key = PRO): Promise<Response> =>
  fetch(`${service.origin}/api/v1/capture?${new URLSearchParams({ url: fixtures.url('/proxied'), viewport_width: '300', viewport_height: '200', ...query })}`, { headers: { 'X-API-Key': key } });

async function colour(response: Response): Promise<[number, number, number]> {
  expect(response.status, await response.clone().text().then((text) => text.slice(0, 300))).toBe(200);
  return (await decode(Buffer.from(await response.arrayBuffer()))).at(150, 100);
}

describe.skipIf(!isBuilt())('proxy over HTTP (npm start)', () => {
  it('an http proxy with credentials carries the page and its image; a capture without one does not use it', async () => {
    expect(near(await colour(await capture({ proxy: httpProxy.url })), '#00ff00')).toBe(true);
    expect(httpProxy.carried).toEqual([fixtures.url('/proxied'), fixtures.url('/proxied.svg')]);
    expect(httpProxy.refused).toBe(0);
    expect(near(await colour(await capture({})), '#00ff00')).toBe(true);
    expect(httpProxy.carried).toHaveLength(2);
  });

  it('a socks5 proxy with credentials tunnels every connection', async () => {
    expect(near(await colour(await capture({ proxy: socksProxy.url })), '#00ff00')).toBe(true);
    expect(socksProxy.carried.length).toBeGreaterThan(0);
    expect(new Set(socksProxy.carried)).toEqual(new Set([new URL(fixtures.origin).host]));
    expect(socksProxy.refused).toBe(0);
  });

  it('a named proxy is used without its address or credentials reaching the answer or the log', async () => {
    const response = await capture({ proxy: 'counted', response_type: 'json' });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(named.carried).toContain(fixtures.url('/proxied'));
    expect(text).not.toMatch(/s3cret|operator@|counted/);
    expect(service.output()).not.toMatch(/s3cret/);
  });

  it('a proxy that refuses its credentials fails the capture with reason proxy, over http and socks5', async () => {
    for (const proxy of [httpProxy, socksProxy]) {
      const refusedBefore = proxy.refused;
      const wrong = new URL(proxy.url);
      wrong.password = 'wrong';
      const response = await capture({ proxy: wrong.href });
      expect(response.status).toBe(502);
      const body = await response.json();
      expect(body).toMatchObject({ code: 'CAPTURE_FAILED', reason: 'proxy' });
      expect(JSON.stringify(body)).not.toContain('wrong');
      expect(proxy.refused).toBeGreaterThan(refusedBefore);
    }
  });

  it('refuses an unknown name, a scheme that is no proxy, and a tier without proxies', async () => {
    const unknown = await capture({ proxy: 'mars' });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ code: 'INVALID_PARAMETER', param: 'proxy', error: expect.stringMatching(/no proxy is named 'mars' \(named proxies: counted\)/) });
    const ftp = await capture({ proxy: 'ftp://127.0.0.1:21' });
    expect(ftp.status).toBe(400);
    expect(await ftp.json()).toMatchObject({ code: 'INVALID_PARAMETER', param: 'proxy' });
    const free = await capture({ proxy: 'counted' }, FREE);
    expect(free.status).toBe(403);
    expect(await free.json()).toMatchObject({ code: 'TIER_RESTRICTED', param: 'proxy', required: 'PRO' });
  });
});
