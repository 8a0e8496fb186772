import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { isBuilt, killLeftoverBuiltProcesses, type BuiltService } from '../helpers/built-service.js';
import type { Account } from '../helpers/key-cli.js';
import { startKeyedService, type KeyedService } from '../helpers/keyed-service.js';
import { decode, near } from '../helpers/pixels.js';
import { CLEARING_CHALLENGE, VENDOR_PAGES } from '../plugins/bot-challenge-fixtures.js';

// A test that fails before stopping its service leaves it running: kill what is left.
afterAll(killLeftoverBuiltProcesses);

/** Bot walls over HTTP on the built service (npm start): refused, free, never cached; or taken and marked. */
let fixtures: FixtureServer;
let keyed: KeyedService;
let service: BuiltService;
let account: Account;

beforeAll(async () => {
  if (!isBuilt()) return;
  fixtures = await startFixtureServer({ ...Object.fromEntries(Object.entries(VENDOR_PAGES).map(([route, { handler }]) => [route, handler])), ...CLEARING_CHALLENGE });
  keyed = await startKeyedService('bot-challenge-http');
  service = keyed.service;
  account = keyed.accounts[0]!;
});
afterAll(async () => {
  await keyed?.close();
  await fixtures?.close();
});

const capture = (params: Record<string, string>): Promise<Response> =>
  fetch(`${service.origin}/api/v1/capture?${new URLSearchParams({ viewport_width: '400', viewport_height: '300', ...params })}`, { headers: { 'X-API-Key': account.key } });

const quotaLeft = async (): Promise<number> => {
  const answer = await fetch(`${service.origin}/api/v1/captures/none`, { headers: { 'X-API-Key': account.key } });
  await answer.arrayBuffer();
  return Number(answer.headers.get('x-quota-remaining'));
};

describe.skipIf(!isBuilt())('bot walls over HTTP (npm start)', () => {
  it.each(Object.entries(VENDOR_PAGES))('%s: 422 bot_challenge with its vendor, no quota used', async (route, { vendor }) => {
    const before = await quotaLeft();
    expect(before).toBeGreaterThan(0);
    const answer = await capture({ url: fixtures.url(route) });
    expect(answer.status).toBe(422);
    expect(await answer.json()).toMatchObject({ code: 'CAPTURE_REJECTED', reason: 'bot_challenge', vendor });
    expect(await quotaLeft()).toBe(before);
  });

  it('a refused wall is never cached: the same cache=true request reaches the page again', async () => {
    const route = '/wall/cloudflare';
    const before = fixtures.hits(route);
    const first = await capture({ url: fixtures.url(route), cache: 'true' });
    expect(first.status).toBe(422);
    await first.arrayBuffer();
    const second = await capture({ url: fixtures.url(route), cache: 'true' });
    expect(second.status).toBe(422);
    expect(second.headers.get('x-cache')).not.toBe('HIT');
    await second.arrayBuffer();
    expect(fixtures.hits(route) - before).toBe(2);
  });

  it('on_bot_challenge=capture answers 200 with X-Capture-Incomplete: bot_challenge, and incomplete in JSON', async () => {
    const before = await quotaLeft();
    const image = await capture({ url: fixtures.url('/wall/datadome'), on_bot_challenge: 'capture' });
    expect(image.status).toBe(200);
    // Taken on purpose, it is a capture like any other: it counts.
    expect(await quotaLeft()).toBe(before - 1);
    expect(image.headers.get('x-capture-incomplete')).toBe('bot_challenge');
    await image.arrayBuffer();
    const json = await capture({ url: fixtures.url('/wall/datadome'), on_bot_challenge: 'capture', response_type: 'json', diagnostics: 'true' });
    const body = (await json.json()) as { incomplete?: string[]; diagnostics?: { bot_challenge?: { vendor: string } } };
    expect(body.incomplete).toEqual(['bot_challenge']);
    expect(body.diagnostics?.bot_challenge?.vendor).toBe('datadome');
  });

  it("a self-clearing challenge ends in the real page's pixels", async () => {
    const answer = await capture({ url: fixtures.url('/clearing/page') });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-capture-incomplete')).toBeNull();
    const image = await decode(Buffer.from(await answer.arrayBuffer()));
    expect(near(image.at(200, 150), '#00ff00')).toBe(true);
  });
});
