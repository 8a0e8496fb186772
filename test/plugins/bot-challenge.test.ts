import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine, CaptureInput } from '../../src/index.js';
import { CaptureError } from '../../src/core/errors/catalogue.js';
import { createTestEngine } from '../helpers/engine.js';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, near } from '../helpers/pixels.js';
import { CLEARING_CHALLENGE, ORDINARY_PAGES, VENDOR_PAGES } from './bot-challenge-fixtures.js';

let fixtures: FixtureServer;
let engine: CaptureEngine;
const met: { vendor: string; outcome: string }[] = [];

beforeAll(async () => {
  fixtures = await startFixtureServer({
    ...Object.fromEntries(Object.entries(VENDOR_PAGES).map(([path, { handler }]) => [path, handler])),
    ...ORDINARY_PAGES,
    ...CLEARING_CHALLENGE,
    '/robots.txt': (_req, res) => void res.writeHead(200, { 'Content-Type': 'text/plain' }).end('User-agent: capture-engine\nDisallow: /private/\n\nUser-agent: *\nDisallow: /ordinary/\n'),
    '/private/page': (_req, res) => html(res, '<body style="background:#00ff00">private</body>'),
    '/identity': (req, res) => html(res, `<p>header ${req.headers['user-agent'] ?? ''}</p><p id="script"></p><script>document.getElementById('script').textContent = 'script ' + navigator.userAgent</script>`),
  });
  engine = await createTestEngine({ timeoutMs: 10_000, observer: { botChallenge: (vendor, outcome) => met.push({ vendor, outcome }) } });
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
});

const shot = (path: string, params: Partial<CaptureInput> = {}) => engine.capture({ url: fixtures.url(path), viewport_width: 400, viewport_height: 300, ...params });

async function refusal(path: string, params: Partial<CaptureInput> = {}): Promise<CaptureError> {
  const error = await shot(path, params).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, `${path} was captured`).toBeInstanceOf(CaptureError);
  return error as CaptureError;
}

describe('bot challenge and block pages', () => {
  it.each(Object.entries(VENDOR_PAGES))('%s answers CAPTURE_REJECTED, reason bot_challenge, with its vendor and what matched', async (path, { vendor }) => {
    const error = await refusal(path);
    expect([error.code, error.status, error.details.reason, error.details.vendor]).toEqual(['CAPTURE_REJECTED', 422, 'bot_challenge', vendor]);
    expect((error.details.items as string[]).length).toBeGreaterThan(0);
    expect(met.at(-1)).toEqual({ vendor, outcome: 'rejected' });
  });

  it.each(Object.keys(ORDINARY_PAGES))('%s is captured as an ordinary page', async (path) => {
    const result = await shot(path, { diagnostics: true, response_type: 'json' });
    expect(result.incomplete).toBeUndefined();
    expect(result.diagnostics?.bot_challenge).toBeUndefined();
    await result.dispose();
  });

  it('on_bot_challenge=capture takes the page, marked incomplete, with what matched in the diagnostics', async () => {
    const result = await shot('/wall/akamai', { on_bot_challenge: 'capture', diagnostics: true, response_type: 'json' });
    expect(result.incomplete).toEqual(['bot_challenge']);
    expect(result.diagnostics?.bot_challenge?.vendor).toBe('akamai');
    expect(result.diagnostics?.bot_challenge?.matched).toContain('status 403');
    expect(met.at(-1)).toEqual({ vendor: 'akamai', outcome: 'captured' });
    await result.dispose();
  });

  it('a JavaScript challenge that clears itself is waited for, and the real page is captured', async () => {
    const before = fixtures.hits('/clearing/page');
    const result = await shot('/clearing/page');
    expect(fixtures.hits('/clearing/page') - before).toBe(2);
    expect(result.incomplete).toBeUndefined();
    const image = await decode(result.data as Buffer);
    expect(near(image.at(200, 150), '#00ff00')).toBe(true);
    await result.dispose();
  });
});

describe('identifying honestly (issue 56, section 3)', () => {
  const identity = async (params: Partial<CaptureInput> = {}): Promise<string> => {
    const result = await shot('/identity', { format: 'text', ...params });
    const text = String(result.data);
    await result.dispose();
    return text;
  };

  it('the browser says what it is: Chromium\'s own User-Agent, then capture-engine/<version>, in the header and navigator.userAgent', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    const text = await identity();
    const [header, script] = [/header (.+)/.exec(text)?.[1]?.trim(), /script (.+)/.exec(text)?.[1]?.trim()];
    expect(header).toMatch(new RegExp(`^Mozilla/5\\.0 .*Chrome/[\\d.]+ .* capture-engine/${version.replaceAll('.', '\\.')}$`));
    expect(script).toBe(header);
  });

  it('user_agent replaces it, and a locale alone keeps it', async () => {
    expect(await identity({ user_agent: 'ExampleBot/1.0' })).toMatch(/^header ExampleBot\/1\.0\s+script ExampleBot\/1\.0$/);
    expect(await identity({ locale: 'de-DE' })).toContain('capture-engine/');
  });

  it('robots_txt=respect refuses what robots.txt disallows for capture-engine, with URL_NOT_ALLOWED naming the rule; the file is fetched once', async () => {
    const before = fixtures.hits('/robots.txt');
    const error = await refusal('/private/page', { robots_txt: 'respect' });
    expect([error.code, error.status, error.details.reason, error.details.param]).toEqual(['URL_NOT_ALLOWED', 403, 'robots_txt', 'robots_txt']);
    expect(error.message).toContain('disallows /private/page for capture-engine (line 2)');
    // The group of capture-engine is the one read: `*`'s rules do not apply to it.
    const allowed = await shot('/ordinary/signup', { robots_txt: 'respect' });
    await allowed.dispose();
    expect(fixtures.hits('/robots.txt') - before).toBe(1);
    // Without it the file is not read, and the page is captured.
    await (await shot('/private/page')).dispose();
    expect(fixtures.hits('/robots.txt') - before).toBe(1);
  });
});
