import { createHash } from 'node:crypto';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chromiumArgs, findChromium } from '../../src/browser/chromium-path.js';
import {
  createEgressProxy,
  writeEgressPreferences,
  type EgressPolicy, type EgressProxy, type EgressSession } from '../../src/egress/index.js';

/**
 * The egress guard against a real Chromium. Everything listens on loopback: the injected resolver
 * plays "public" names and the isAllowed hook admits exactly one fixture port, so every other
 * loopback listener stands in for the operator's private network. Canaries count TCP connections,
 * not requests: a guard that connects and then refuses would still be a leak.
 */

interface Listener {
  server: Server;
  port: number;
  connections: number;
  requests: string[];
  /** All of them, upgraded ones included, which closeAllConnections() does not know about. */
  sockets: Set<Socket>;
}

async function listen(host: string, port: number, handler: Parameters<typeof createServer>[1]): Promise<Listener> {
  const server = createServer(handler);
  const listener: Listener = { server, port: 0, connections: 0, requests: [], sockets: new Set() };
  server.on('connection', (socket: Socket) => {
    listener.connections++;
    listener.sockets.add(socket);
    socket.on('close', () => listener.sockets.delete(socket));
  });
  server.on('request', (req: IncomingMessage) => listener.requests.push(req.url ?? ''));
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  listener.port = (server.address() as AddressInfo).port;
  return listener;
}

const closeListener = (l: Listener): Promise<void> =>
  new Promise((resolve) => {
    l.server.close(() => resolve());
    for (const socket of l.sockets) socket.destroy();
  });

/** Just enough WebSocket server to prove an allowed tunnel carries traffic. */
function acceptWebSocket(req: IncomingMessage, socket: Socket): void {
  const accept = createHash('sha1')
    .update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
    .digest('base64');
  socket.on('error', () => {});
  // Upgraded sockets are half-open capable and outside closeAllConnections(): end with the peer.
  socket.on('end', () => socket.destroy()).resume();
  socket.write(
    'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
      `Sec-WebSocket-Accept: ${accept}\r\n\r\n`,
  );
  socket.write(Buffer.concat([Buffer.from([0x81, 5]), Buffer.from('hello')]));
}

let userDataDir: string;
let persistent: BrowserContext;
let browser: Browser;
/** Counts UDP datagrams: WebRTC's way around any HTTP proxy. */
let udpCanary: UdpSocket;
let udpPackets = 0;
let fixture: Listener;
let canary: Listener;
/** Same port as the fixture on another loopback address: where a rebinding answer points. */
let rebindCanary: Listener;
let proxy: EgressProxy;
let unpinnedProxy: EgressProxy;
let resolverCalls: string[] = [];
let rebindAnswers: string[][] = [];

const canaryHits = (): number => canary.connections + rebindCanary.connections;

const policy: EgressPolicy = {
  allowPrivateNetworks: false,
  resolver: async (hostname) => {
    resolverCalls.push(hostname);
    await new Promise(setImmediate); // answers arrive later, like real DNS
    switch (hostname) {
      case 'public.test':
      case 'canary.test':
        return ['127.0.0.1'];
      case 'mixed.test':
        return ['127.0.0.1', '127.0.0.2'];
      case 'rebind.test':
        return rebindAnswers.length > 1 ? rebindAnswers.shift()! : rebindAnswers[0]!;
      default:
        throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    }
  },
  isAllowed: (address, port) => address === '127.0.0.1' && port === fixture.port,
};

beforeAll(async () => {
  [fixture, canary] = await Promise.all([
    listen('127.0.0.1', 0, (req, res) => {
      const canaryUrl = `http://canary.test:${canary.port}`;
      switch (req.url) {
        case '/redirect':
          return void res.writeHead(302, { Location: `${canaryUrl}/redirected` }).end();
        case '/redirect-literal':
          return void res.writeHead(302, { Location: `http://127.0.0.1:${canary.port}/redirected` }).end();
        case '/redirect-https':
          return void res.writeHead(302, { Location: `https://canary.test:${canary.port}/redirected` }).end();
        case '/data':
          return void res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
        default:
          res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>fixture</title><p>fixture ok</p>');
      }
    }),
    listen('127.0.0.1', 0, (_req, res) => res.end('CANARY')),
  ]);
  fixture.server.on('upgrade', acceptWebSocket);
  rebindCanary = await listen('127.0.0.2', fixture.port, (_req, res) => res.end('CANARY'));
  proxy = createEgressProxy(policy);
  unpinnedProxy = createEgressProxy(policy, { dnsPinMs: 0 });
  udpCanary = createSocket('udp4').on('message', () => udpPackets++);
  await new Promise<void>((resolve) => udpCanary.bind(0, '127.0.0.1', resolve));
  // The launch the engine is expected to use: a profile carrying the WebRTC preference, contexts
  // from browser.newContext() with one proxy session each.
  userDataDir = await mkdtemp(join(tmpdir(), 'egress-test-'));
  await writeEgressPreferences(userDataDir);
  persistent = await chromium.launchPersistentContext(userDataDir, { executablePath: findChromium(), args: chromiumArgs() });
  browser = persistent.browser()!;
}, 30_000);

afterAll(async () => {
  await persistent?.close();
  udpCanary?.close();
  if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
  await Promise.all([proxy?.close(), unpinnedProxy?.close()]);
  await Promise.all([fixture, canary, rebindCanary].filter(Boolean).map(closeListener));
});

let context: BrowserContext | undefined;
let session: EgressSession | undefined;

async function openPage(from: EgressProxy = proxy): Promise<{ page: Page; session: EgressSession }> {
  session = await from.openSession();
  context = await browser.newContext({ proxy: { server: session.server, bypass: '<-loopback>' } });
  return { page: await context.newPage(), session };
}

afterEach(async () => {
  await context?.close();
  await session?.close();
  context = undefined;
  session = undefined;
  resolverCalls = [];
  rebindAnswers = [];
  canary.connections = rebindCanary.connections = udpPackets = 0;
  canary.requests = [];
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

  it('keeps WebRTC off UDP: STUN/TURN to private addresses send nothing, TURN over TCP meets the proxy', async () => {
    const { page, session } = await openPage();
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
    rebindAnswers = [['127.0.0.1'], ['127.0.0.2']];
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
    rebindAnswers = [['127.0.0.1'], ['127.0.0.2']];
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
});

describe('egress proxy without a browser', () => {
  const getVia = (target: string): string => `GET ${target} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`;
  const connectTo = (authority: string): string => `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`;

  /** Sends one raw request to the proxy and returns what came back before it closed. */
  function raw(server: string, text: string): Promise<string> {
    const { port } = new URL(server);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
      let data = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (data += chunk));
      socket.on('close', () => resolve(data));
      socket.on('error', reject);
      setTimeout(() => socket.destroy(), 2_000).unref();
    });
  }

  it('answers malformed and refused CONNECTs and closes them', async () => {
    const s = await proxy.openSession();
    try {
      const refused = await raw(s.server, connectTo(`canary.test:${canary.port}`));
      expect(refused).toMatch(/^HTTP\/1\.1 403 [^]*URL_NOT_ALLOWED$/);
      for (const authority of ['nonsense', 'user@public.test:1', '127.0.0.1:0', '127.0.0.1:65536', 'a/b:80']) {
        expect(await raw(s.server, connectTo(authority)), authority).toMatch(/^HTTP\/1\.1 400/);
      }
      expect(await raw(s.server, getVia('/origin-form'))).toMatch(/^HTTP\/1\.1 400/);
      expect(await raw(s.server, getVia('ftp://public.test/'))).toMatch(/^HTTP\/1\.1 403/);
      expect(await raw(s.server, 'NOT HTTP AT ALL\r\n\r\n')).not.toMatch(/^HTTP\/1\.1 200/);
      expect(canaryHits()).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('carries an allowed tunnel and tears it down on close, leaving no sockets behind', async () => {
    const s = await proxy.openSession();
    const before = fixture.connections;
    const upstreamSide = new Promise<Socket>((resolve) => fixture.server.once('connection', resolve));
    const tunnel = connect(Number(new URL(s.server).port), '127.0.0.1');
    tunnel.setEncoding('utf8');
    let received = '';
    tunnel.on('data', (chunk: string) => (received += chunk));
    const closed = new Promise<void>((resolve) => tunnel.on('close', () => resolve()));
    tunnel.on('error', () => {});
    tunnel.write(`CONNECT public.test:${fixture.port} HTTP/1.1\r\nHost: public.test\r\n\r\n`);
    tunnel.write(`GET /data HTTP/1.1\r\nHost: public.test:${fixture.port}\r\n\r\n`);
    await expect
      .poll(() => received)
      .toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK\r\n[^]*\{"ok":true\}/);
    expect(fixture.connections).toBe(before + 1);
    const upstream = await upstreamSide;
    const upstreamClosed = new Promise<void>((resolve) => upstream.once('close', () => resolve()));
    await s.close();
    await closed;
    await upstreamClosed;
  });

  it('survives clients and upstreams that reset mid-exchange', async () => {
    const slow = await listen('127.0.0.1', 0, (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('partial');
      setTimeout(() => res.socket?.destroy(), 50);
    });
    const local = createEgressProxy({ ...policy, isAllowed: (a, p) => a === '127.0.0.1' && p === slow.port });
    const s = await local.openSession();
    const proxyPort = Number(new URL(s.server).port);
    try {
      // Upstream dies after the headers: the client sees a truncated body, the proxy lives on.
      const truncated = await new Promise<string>((resolve) => {
        const req = request({ host: '127.0.0.1', port: proxyPort, path: `http://public.test:${slow.port}/` }, (res) => {
          res.on('data', () => {});
          res.on('error', () => resolve('aborted'));
          res.on('close', () => resolve(res.complete ? 'complete' : 'aborted'));
        });
        req.on('error', () => resolve('aborted'));
        req.end();
      });
      expect(truncated).toBe('aborted');
      // Client resets right after sending a request and right after a CONNECT.
      for (const text of [getVia(`http://public.test:${slow.port}/`), connectTo(`public.test:${slow.port}`)]) {
        const socket = connect(proxyPort, '127.0.0.1', () => {
          socket.write(text);
          setImmediate(() => socket.resetAndDestroy());
        });
        socket.on('error', () => {});
        await new Promise((resolve) => socket.on('close', resolve));
      }
      expect(await raw(s.server, getVia(`http://public.test:${slow.port}/`))).toContain('partial');
    } finally {
      await s.close();
      await local.close();
      await closeListener(slow);
    }
  });

  it('resends a bodiless request when a kept-alive upstream connection was closed under it', async () => {
    // Answers the first request of each connection, then drops the connection at the next one:
    // the race a keep-alive pool meets when a server times out an idle connection.
    const flaky = await listen('127.0.0.1', 0, (req, res) => {
      const socket = req.socket as Socket & { served?: number };
      socket.served = (socket.served ?? 0) + 1;
      if (socket.served > 1) return void socket.destroy();
      res.end(`ok ${req.url}`);
    });
    const local = createEgressProxy({ ...policy, isAllowed: (a, p) => a === '127.0.0.1' && p === flaky.port });
    const s = await local.openSession();
    const agent = new (await import('node:http')).Agent({ keepAlive: true, maxSockets: 1 });
    const get = (path: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const url = new URL(s.server);
        request({ host: url.hostname, port: url.port, path: `http://public.test:${flaky.port}${path}`, agent }, (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (c: string) => (body += c));
          res.on('end', () => resolve(`${res.statusCode} ${body}`));
        }).on('error', reject).end();
      });
    try {
      expect(await get('/1')).toBe('200 ok /1');
      expect(await get('/2')).toBe('200 ok /2');
      expect(flaky.connections).toBe(2);
    } finally {
      agent.destroy();
      await local.close();
      await closeListener(flaky);
    }
  });

  it('survives upstreams that answer garbage', async () => {
    const garbage = createTcpServer((socket) => {
      socket.on('error', () => {});
      socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nX-Bad: a\u0001b\r\nContent-Length: 2\r\n\r\nhi'));
    });
    await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve));
    const port = (garbage.address() as AddressInfo).port;
    const local = createEgressProxy({ ...policy, isAllowed: (a, p) => a === '127.0.0.1' && p === port });
    const s = await local.openSession();
    try {
      expect(await raw(s.server, getVia(`http://public.test:${port}/`))).toMatch(/^HTTP\/1\.1 502/);
      // And the session still serves.
      expect(await raw(s.server, connectTo(`canary.test:${canary.port}`))).toMatch(/^HTTP\/1\.1 403/);
    } finally {
      await local.close();
      await new Promise((resolve) => garbage.close(resolve));
    }
  });

  it('reports an unreachable allowed upstream as 502', async () => {
    const gone = await listen('127.0.0.1', 0, () => {});
    const port = gone.port;
    await closeListener(gone);
    const local = createEgressProxy({ ...policy, isAllowed: (a, p) => a === '127.0.0.1' && p === port });
    const s = await local.openSession();
    try {
      expect(await raw(s.server, getVia(`http://public.test:${port}/`))).toMatch(/^HTTP\/1\.1 502/);
      expect(await raw(s.server, connectTo(`public.test:${port}`))).toMatch(/^HTTP\/1\.1 502/);
      expect(s.failureFor(`http://public.test:${port}/`)).toBe('unreachable');
      expect(s.refusedUrls()).toEqual([]);
    } finally {
      await local.close();
    }
  });
});
