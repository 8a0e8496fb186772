import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundGuard } from '../../src/egress/index.js';
import { createRobotsRules, ROBOTS_LIMITS, type RobotsLimits } from '../../src/egress/robots-rules.js';
import type { CaptureError } from '../../src/core/errors/catalogue.js';

/** robots.txt fetches, by host name: the counts the cache is judged by. */
const fetches = new Map<string, number>();
const PADDING = `# ${'x'.repeat(97)}\n`;

/** One origin per host name (every name resolves to loopback); what each answers is in its name. */
const server = createServer((req, res) => {
  const host = (req.headers.host ?? '').split(':')[0] ?? '';
  if (req.url === '/robots.txt') fetches.set(host, (fetches.get(host) ?? 0) + 1);
  const text = (body: string, status = 200): ServerResponse => res.writeHead(status, { 'Content-Type': 'text/plain' }).end(body);
  if (host.startsWith('hang')) return; // never answers
  if (host === 'missing.test') return void text('no such file', 404);
  if (host === 'down.test') return void text('down', 503);
  if (host === 'moved.test') return void (req.url === '/robots.txt' ? res.writeHead(301, { Location: '/elsewhere.txt' }).end() : text('User-agent: *\nDisallow: /\n'));
  // The one rule comes after 600 KiB of comments: past the bound, never read.
  if (host === 'big.test') return void text(`User-agent: capture-engine\nDisallow: /early\n${PADDING.repeat(6 * 1024)}Disallow: /late\n`);
  // 10,000 characters of rules: counted as 20,000 bytes in the cache.
  if (host.startsWith('padded')) return void text(`User-agent: *\nDisallow: /x\n${PADDING.repeat(100)}`);
  text('User-agent: capture-engine\nDisallow: /private\n\nUser-agent: *\nDisallow: /\n');
});
let port: number;
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const guard = createOutboundGuard({ allowPrivateNetworks: true, resolver: async () => ['127.0.0.1'] });
const url = (host: string, path = '/'): URL => new URL(`http://${host}:${port}${path}`);
const rules = (limits: Partial<RobotsLimits> = {}) => createRobotsRules(guard, { ...ROBOTS_LIMITS, ...limits });
const refusal = (promise: Promise<void>): Promise<CaptureError> => promise.then(() => Promise.reject(new Error('allowed')), (error: CaptureError) => error);

describe('robots_txt=respect (RFC 9309)', () => {
  it("reads capture-engine's group, refuses what it disallows naming the line, and fetches the file once for many checks at once", async () => {
    const robots = rules();
    const error = await refusal(robots.check(url('rules.test', '/private/page?id=1')));
    expect([error.code, error.details]).toEqual(['URL_NOT_ALLOWED', { url: url('rules.test', '/private/page?id=1').href, param: 'robots_txt', reason: 'robots_txt' }]);
    expect(error.message).toContain('disallows /private/page?id=1 for capture-engine (line 2)');
    await Promise.all(Array.from({ length: 5 }, () => robots.check(url('rules.test', '/public'))));
    await Promise.all(Array.from({ length: 5 }, () => robots.check(url('rules2.test', '/public'))));
    expect([fetches.get('rules.test'), fetches.get('rules2.test')]).toEqual([1, 1]);
  });

  it('a missing file allows everything; a 5xx disallows everything, and is kept a while too; redirects are followed', async () => {
    const robots = rules();
    await robots.check(url('missing.test', '/anything'));
    const down = await refusal(robots.check(url('down.test', '/anything')));
    expect([down.code, down.details.reason]).toEqual(['URL_NOT_ALLOWED', 'robots_txt']);
    expect(down.message).toContain('could not be read (it answered 503)');
    await refusal(robots.check(url('down.test', '/other')));
    expect(fetches.get('down.test')).toBe(1);
    await refusal(robots.check(url('moved.test', '/page')));
  });

  it('reads at most maxBytes of a file and waits at most timeoutMs for one', async () => {
    const robots = rules({ timeoutMs: 300 });
    await refusal(robots.check(url('big.test', '/early')));
    await robots.check(url('big.test', '/late'));
    expect(robots.cached.bytes).toBeLessThanOrEqual(256 + 2 * ROBOTS_LIMITS.maxBytes);
    const hung = await refusal(robots.check(url('hang.test', '/')));
    expect(hung.message).toContain('did not answer within 300 ms');
  });

  it('keeps at most maxOrigins origins and maxCachedBytes bytes: the least recently used are fetched again', async () => {
    const robots = rules({ maxOrigins: 50 });
    for (let i = 0; i < 200; i++) await robots.check(url(`o${i}.test`, '/page'));
    expect(robots.cached.origins).toBe(50);
    await robots.check(url('o199.test', '/page'));
    await robots.check(url('o0.test', '/page'));
    expect([fetches.get('o199.test'), fetches.get('o0.test')]).toEqual([1, 2]);
    const small = rules({ maxCachedBytes: 64 * 1024 });
    for (let i = 0; i < 10; i++) await small.check(url(`padded${i}.test`, '/page'));
    expect(small.cached.origins).toBe(3);
    expect(small.cached.bytes).toBeLessThanOrEqual(64 * 1024);
  });

  it('past maxFetches fetches under way, a capture is told to come back (SERVICE_BUSY)', async () => {
    const robots = rules({ maxFetches: 2, timeoutMs: 300 });
    const hanging = [robots.check(url('hang.test', '/a')), robots.check(url('hang.test', '/b'))];
    const other = robots.check(url('hang2.test', '/a'));
    const busy = await refusal(robots.check(url('rules.test', '/public')));
    expect([busy.code, busy.details.reason]).toEqual(['SERVICE_BUSY', 'robots_txt']);
    await Promise.allSettled([...hanging, other]);
  });
});
