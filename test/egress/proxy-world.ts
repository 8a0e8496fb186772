import { createHash } from 'node:crypto';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createEgressProxy, type EgressPolicy, type EgressProxy } from '../../src/egress/index.js';

/**
 * The world the egress proxy tests run in, set up around every test file that imports it. Everything listens on loopback: the injected resolver
 * plays "public" names and the isAllowed hook admits exactly one fixture port, so every other
 * loopback listener stands in for the operator's private network. Canaries count TCP connections,
 * not requests: a guard that connects and then refuses would still be a leak.
 */

export interface Listener {
  server: Server;
  port: number;
  connections: number;
  requests: string[];
  /** All of them, upgraded ones included, which closeAllConnections() does not know about. */
  sockets: Set<Socket>;
}

export async function listen(host: string, port: number, handler: Parameters<typeof createServer>[1]): Promise<Listener> {
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

export const closeListener = (l: Listener): Promise<void> =>
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

/** Counts UDP datagrams: WebRTC's way around any HTTP proxy. */
export let udpCanary: UdpSocket;
export let udpPackets = 0;
export let fixture: Listener;
export let canary: Listener;
/** Same port as the fixture on another loopback address: where a rebinding answer points. */
export let rebindCanary: Listener;
export let proxy: EgressProxy;
export let unpinnedProxy: EgressProxy;
export let resolverCalls: string[] = [];
/** What `rebind.test` resolves to, answer by answer. */
export const rebindAnswers: string[][] = [];

export const canaryHits = (): number => canary.connections + rebindCanary.connections;

export const policy: EgressPolicy = {
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
}, 30_000);

afterAll(async () => {
  udpCanary?.close();
  await Promise.all([proxy?.close(), unpinnedProxy?.close()]);
  await Promise.all([fixture, canary, rebindCanary].filter(Boolean).map(closeListener));
});

afterEach(() => {
  resolverCalls = [];
  rebindAnswers.length = 0;
  canary.connections = rebindCanary.connections = udpPackets = 0;
  canary.requests = [];
});
