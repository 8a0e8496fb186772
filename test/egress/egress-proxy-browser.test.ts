import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chromiumArgs, findChromium } from '../../src/browser/chromium-path.js';
import { writeEgressPreferences, type EgressProxy, type EgressSession } from '../../src/egress/index.js';
import { canary, canaryHits, fixture, proxy, rebindAnswers, rebindCanary, resolverCalls, udpCanary, udpPackets, unpinnedProxy } from './proxy-world.js';

/**
 * The egress guard against a real Chromium, launched the way the engine launches it: a profile
 * carrying the WebRTC preference, contexts from browser.newContext() with one proxy session each.
 */
let userDataDir: string;
let persistent: BrowserContext;
let browser: Browser;

beforeAll(async () => {
  userDataDir = await mkdtemp(join(tmpdir(), 'egress-test-'));
  await writeEgressPreferences(userDataDir);
  persistent = await chromium.launchPersistentContext(userDataDir, { executablePath: findChromium(), args: chromiumArgs() });
  browser = persistent.browser()!;
}, 30_000);

afterAll(async () => {
  await persistent?.close();
  if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
});

let context: BrowserContext | undefined;
let session: EgressSession | undefined;

/**
 * A context through a new session: as an HTTP proxy (what a context with a proxy of its own is
 * given, and what these tests were written for), or as SOCKS5 (every other context).
 */
async function openPage(from: EgressProxy = proxy, as: 'http' | 'socks5' = 'http'): Promise<{ page: Page; session: EgressSession }> {
  session = await from.openSession();
  const server = as === 'http' ? session.server.replace(/^socks5:/, 'http:') : session.server;
  context = await browser.newContext({ proxy: { server, bypass: '<-loopback>' } });
  return { page: await context.newPage(), session };
}

afterEach(async () => {
  await context?.close();
  await session?.close();
  context = undefined;
  session = undefined;
});

describe('egress proxy with Chromium', () => {
  it('loads an allowed page through the proxy, with the Host header the page asked for', async () => {
    const { page, session } = await openPage();
    const response = await page.goto(`http://public.test:${fixture.port}/`);
    expect(response?.status()).toBe(200);
    expect(await page.textContent('p')).toBe('fixture ok');
    expect(session.refusedUrls()).toEqual([]);
    expect(session.failureFor(page.url())).toBeUndefined();
    expect(resolverCalls).toContain('public.test');
  });

  it('refuses private main-frame targets, named, literal, redirected or tunnelled, and says why', async () => {
    const { page, session } = await openPage();
    const failedNavigations: string[] = [];
    page.on('requestfailed', (r) => {
      if (r.isNavigationRequest() && r.frame() === page.mainFrame()) failedNavigations.push(r.url());
    });

    // Plain http: the browser renders the proxy's 403 like any page; failureFor() tells them apart.
    const redirected = await page.goto(`http://public.test:${fixture.port}/redirect`);
    const refused = `http://canary.test:${canary.port}/redirected`;
    expect(redirected?.url()).toBe(refused);
    expect(redirected?.status()).toBe(403);
    expect(await redirected?.text()).toBe('URL_NOT_ALLOWED');
    expect(session.failureFor(redirected!.url())).toBe('refused');

    // Loopback literals go through the proxy too: no implicit bypass with <-loopback>.
    for (const target of [
      `http://127.0.0.1:${canary.port}/`,
      `http://[::1]:${canary.port}/`,
      `http://localhost:${canary.port}/`,
      `http://public.test:${fixture.port}/redirect-literal`,
      `http://mixed.test:${fixture.port}/`,
    ]) {
      const response = await page.goto(target);
      expect(response?.status(), target).toBe(403);
      expect(response?.headers()['x-egress-proxy']).toBe('URL_NOT_ALLOWED');
      expect(session.failureFor(response!.url())).toBe('refused');
    }

    // Tunnels (https, wss) fail as a network error; the failed request's URL finds the cause.
    const error = await page.goto(`http://public.test:${fixture.port}/redirect-https`).catch((e: Error) => e);
    expect((error as Error).message).toContain('ERR_TUNNEL_CONNECTION_FAILED');
    expect(failedNavigations).toEqual([`https://canary.test:${canary.port}/redirected`]);
    expect(session.failureFor(failedNavigations[0]!)).toBe('refused');

    await page.goto('https://nx.test/').catch(() => undefined);
    expect(session.failureFor('https://nx.test/')).toBe('dns');
    expect(session.refusedUrls()).toEqual(
      expect.arrayContaining([
        refused,
        `http://127.0.0.1:${canary.port}/`,
        `http://[::1]:${canary.port}/`,
        `http://localhost:${canary.port}/`,
        `http://127.0.0.1:${canary.port}/redirected`,
        `http://mixed.test:${fixture.port}/`,
        `canary.test:${canary.port}`,
      ]),
    );
    expect(session.refusedUrls()).not.toContain('nx.test:443'); // a DNS failure is not a refusal
    expect(canaryHits()).toBe(0);
  });

  it('refuses iframe, img, fetch, XHR and WebSocket to the canary, while allowed ones work', async () => {
    const { page, session } = await openPage();
    await page.goto(`http://public.test:${fixture.port}/`);
    const results = await page.evaluate(
      async ({ canary, fixture }) => {
        const settle = (el: HTMLIFrameElement | HTMLImageElement): Promise<string> =>
          new Promise((resolve) => {
            el.onload = () => resolve('load');
            el.onerror = () => resolve('error');
            document.body.append(el);
          });
        const iframe = document.createElement('iframe');
        iframe.src = `${canary}/iframe`;
        const img = document.createElement('img');
        img.src = `${canary}/img.png`;
        const xhr = new Promise<number>((resolve) => {
          const x = new XMLHttpRequest();
          x.open('GET', `${canary}/xhr`);
          x.onloadend = () => resolve(x.status);
          x.send();
        });
        const socket = (url: string): Promise<string> =>
          new Promise((resolve) => {
            const ws = new WebSocket(url);
            ws.onmessage = (e) => resolve(`message:${String(e.data)}`);
            ws.onerror = () => resolve('error');
          });
        const [frame, image, fetched, xhrStatus, wsCanary, wsFixture, fetchAllowed] = await Promise.all([
          settle(iframe),
          settle(img),
          fetch(`${canary}/fetch`, { mode: 'no-cors' }).then((r) => r.type, () => 'failed'),
          xhr,
          socket(`${canary.replace('http', 'ws')}/ws`),
          socket(`${fixture.replace('http', 'ws')}/ws`),
          fetch(`${fixture}/data`).then((r) => r.json() as Promise<unknown>),
        ]);
        return { frame, image, fetched, xhrStatus, wsCanary, wsFixture, fetchAllowed };
      },
      { canary: `http://canary.test:${canary.port}`, fixture: `http://public.test:${fixture.port}` },
    );
    expect(results.image).toBe('error');
    expect(results.wsCanary).toBe('error');
    expect(results.wsFixture).toBe('message:hello');
    expect(results.fetchAllowed).toEqual({ ok: true });
    expect(canaryHits()).toBe(0);
    const refused = session.refusedUrls();
    for (const path of ['/iframe', '/img.png', '/fetch', '/xhr']) {
      expect(refused).toContain(`http://canary.test:${canary.port}${path}`);
    }
    expect(refused).toContain(`canary.test:${canary.port}`); // the WebSocket tunnel
  });

  it.each(['http', 'socks5'] as const)('keeps WebRTC off UDP: STUN/TURN to private addresses send nothing, TURN over TCP meets the proxy (%s)', async (as) => {
    const { page, session } = await openPage(proxy, as);
    await page.goto(`http://public.test:${fixture.port}/`);
    const udp = udpCanary.address().port;
    const candidates = await page.evaluate(
      async ({ udp, tcp }) => {
        const pc = new RTCPeerConnection({
          iceServers: [
            { urls: `stun:127.0.0.1:${udp}` },
            { urls: `turn:127.0.0.1:${udp}?transport=udp`, username: 'u', credential: 'c' },
            { urls: `turn:canary.test:${tcp}?transport=tcp`, username: 'u', credential: 'c' },
          ],
        });
        const found: string[] = [];
        pc.onicecandidate = (e) => void (e.candidate && found.push(e.candidate.candidate));
        pc.createDataChannel('probe');
        await pc.setLocalDescription(await pc.createOffer());
        await new Promise<void>((resolve) => {
          pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && resolve();
          setTimeout(resolve, 3_000);
        });
        pc.close();
        return found;
      },
      { udp, tcp: canary.port },
    );
    expect(candidates.filter((c) => / udp /i.test(c))).toEqual([]);
    expect(udpPackets).toBe(0);
    expect(canaryHits()).toBe(0);
    expect(session.refusedUrls()).toContain(`canary.test:${canary.port}`);
  });

  it('pins a checked answer for the session: a rebinding name keeps reaching the checked address', async () => {
    rebindAnswers.push(['127.0.0.1'], ['127.0.0.2']);
    const { page } = await openPage();
    await page.goto(`http://rebind.test:${fixture.port}/`);
    const statuses = await page.evaluate(async () =>
      Promise.all([1, 2, 3].map(async (n) => (await fetch(`/data?${n}`)).status)),
    );
    expect(statuses).toEqual([200, 200, 200]);
    expect(resolverCalls.filter((h) => h === 'rebind.test')).toHaveLength(1);
    expect(rebindCanary.connections).toBe(0);
  });

  it('without pinning, re-checks every request and never dials the rebound address', async () => {
    rebindAnswers.push(['127.0.0.1'], ['127.0.0.2']);
    const { page, session } = await openPage(unpinnedProxy);
    const response = await page.goto(`http://rebind.test:${fixture.port}/`);
    expect(response?.status()).toBe(200);
    const status = await page.evaluate(async () => (await fetch('/data')).status);
    expect(status).toBe(403);
    expect(session.refusedUrls()).toContain(`http://rebind.test:${fixture.port}/data`);
    // Tunnels are re-checked too: the WebSocket now resolves to the canary address.
    const ws = await page.evaluate(
      (url) =>
        new Promise<string>((resolve) => {
          const socket = new WebSocket(url);
          socket.onopen = () => resolve('open');
          socket.onerror = () => resolve('error');
        }),
      `ws://rebind.test:${fixture.port}/ws`,
    );
    expect(ws).toBe('error');
    expect(rebindCanary.connections).toBe(0);
  });

  describe('as a SOCKS5 proxy', () => {
    const socket = (page: Page, url: string): Promise<string> =>
      page.evaluate(
        (url) =>
          new Promise<string>((resolve) => {
            const ws = new WebSocket(url);
            ws.onmessage = (e) => resolve(`message:${String(e.data)}`);
            ws.onerror = () => resolve('error');
          }),
        url,
      );

    it('carries plain-http pages, subresources and web sockets as checked tunnels', async () => {
      const { page, session } = await openPage(proxy, 'socks5');
      expect(session.server).toMatch(/^socks5:/);
      const response = await page.goto(`http://public.test:${fixture.port}/`);
      expect(response?.status()).toBe(200);
      expect(await page.textContent('p')).toBe('fixture ok');
      expect(await page.evaluate(async () => (await fetch('/data')).json() as Promise<unknown>)).toEqual({ ok: true });
      expect(await socket(page, `ws://public.test:${fixture.port}/ws`)).toBe('message:hello');
      expect(await socket(page, `ws://canary.test:${canary.port}/ws`)).toBe('error');
      // Chromium sends the name, not an address it resolved: the guard's resolver is the one asked.
      expect(resolverCalls).toEqual(expect.arrayContaining(['public.test', 'canary.test']));
      expect(session.refusedUrls()).toEqual([`canary.test:${canary.port}`]);
      expect(canaryHits()).toBe(0);
    });

    it('refuses private targets by name, as literals, loopback included, and redirected; failureFor() says why', async () => {
      const { page, session } = await openPage(proxy, 'socks5');
      const failed: string[] = [];
      page.on('requestfailed', (r) => failed.push(`${r.url()} ${r.failure()?.errorText}`));
      for (const target of [
        `http://canary.test:${canary.port}/`,
        `http://127.0.0.1:${canary.port}/`,
        `http://[::1]:${canary.port}/`,
        `http://localhost:${canary.port}/`,
        `http://mixed.test:${fixture.port}/`,
      ]) {
        const error = await page.goto(target).catch((e: Error) => e);
        expect((error as Error).message, target).toContain('ERR_SOCKS_CONNECTION_FAILED');
        expect(session.failureFor(target), target).toBe('refused');
      }
      await page.goto(`http://public.test:${fixture.port}/redirect`).catch(() => undefined);
      expect(failed.at(-1)).toBe(`http://canary.test:${canary.port}/redirected net::ERR_SOCKS_CONNECTION_FAILED`);
      expect(session.failureFor(`http://canary.test:${canary.port}/redirected`)).toBe('refused');
      await page.goto('http://nx.test/').catch(() => undefined);
      expect(session.failureFor('http://nx.test/')).toBe('dns');
      // A refusal does not make Chromium give up on the proxy: the next allowed page loads.
      const next = await page.context().newPage();
      expect((await next.goto(`http://public.test:${fixture.port}/`))?.status()).toBe(200);
      expect(canaryHits()).toBe(0);
    });
  });
});
