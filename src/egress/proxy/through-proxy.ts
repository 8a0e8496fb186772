import { request as httpRequest, type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { connect as netConnect, type Socket, type TcpNetConnectOpts } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { OutboundProxy } from '../../core/ports.js';
import { bareHost } from '../host-name.js';
import { limitConnectTime, pinnedConnectOptions } from './upstream-dial.js';

/** What dialling the proxy needs of the session: its check of the proxy's address, its bound, its sockets. */
export interface ProxyDialContext {
  check(hostname: string, port: number): Promise<{ ok: true; addresses: string[] } | { ok: false; reason: 'refused' | 'dns' }>;
  readonly connectTimeoutMs: number;
  track(socket: Socket): void;
}

/** A connection to the proxy could not be made or the proxy would not carry one. */
export class ProxyUnusable extends Error {}

/** `Proxy-Authorization` for an http(s) proxy with credentials (RFC 9110 §11.7.1, Basic). */
function authorization(proxy: OutboundProxy): OutgoingHttpHeaders {
  const { username, password } = proxy.url;
  if (username === '' && password === '') return {};
  const credentials = `${decodeURIComponent(username)}:${decodeURIComponent(password)}`;
  return { 'Proxy-Authorization': `Basic ${Buffer.from(credentials).toString('base64')}` };
}

/** Whether plain http goes to this proxy as an absolute-form request (http and https proxies do; socks tunnels). */
export function forwardsPlainHttp(proxy: OutboundProxy): boolean {
  return proxy.url.protocol !== 'socks5:';
}

/**
 * A connected socket to the proxy itself: to its checked addresses only, unless it is the
 * operator's; over TLS for an https proxy.
 */
export async function dialProxy(session: ProxyDialContext, proxy: OutboundProxy): Promise<Socket> {
  const host = bareHost(proxy.url.hostname);
  const port = Number(proxy.url.port);
  let options: TcpNetConnectOpts = { host, port, noDelay: true };
  if (!proxy.trusted) {
    const verdict = await session.check(host, port);
    if (!verdict.ok) throw new ProxyUnusable(`the proxy's address is ${verdict.reason === 'dns' ? 'unknown' : 'not allowed'}`);
    options = pinnedConnectOptions(host, port, verdict.addresses) as TcpNetConnectOpts;
  }
  const socket = proxy.url.protocol === 'https:' ? tlsConnect({ ...options, servername: host }) : netConnect(options);
  session.track(socket);
  limitConnectTime(socket, session.connectTimeoutMs);
  await new Promise<void>((resolve, reject) => {
    socket.once(proxy.url.protocol === 'https:' ? 'secureConnect' : 'connect', () => resolve());
    socket.once('error', (error) => reject(new ProxyUnusable(`could not reach the proxy: ${error.message}`)));
  });
  return socket;
}

/**
 * A tunnel to `host:port` through the proxy: HTTP CONNECT, or a SOCKS5 CONNECT. Callers pass the
 * address the egress guard checked, never a name: a proxy resolving a name itself could be told
 * another address (rebinding, split horizon) and reach its own network.
 */
export async function tunnelThrough(session: ProxyDialContext, proxy: OutboundProxy, host: string, port: number): Promise<Socket> {
  const socket = await dialProxy(session, proxy);
  try {
    if (proxy.url.protocol === 'socks5:') {
      // Loaded by the first SOCKS proxy only.
      const { SocksClient } = await import('socks');
      const { socket: tunnel } = await SocksClient.createConnection({
        proxy: { host: bareHost(proxy.url.hostname), port: Number(proxy.url.port), type: 5, userId: decodeURIComponent(proxy.url.username) || undefined, password: decodeURIComponent(proxy.url.password) || undefined },
        command: 'connect',
        destination: { host: bareHost(host), port },
        existing_socket: socket,
        timeout: session.connectTimeoutMs,
      });
      return tunnel;
    }
    const authority = host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
    const connect: ClientRequest = httpRequest({ method: 'CONNECT', path: authority, headers: { Host: authority, ...authorization(proxy) }, createConnection: () => socket });
    const [response, tunnel] = await new Promise<[IncomingMessage, Socket]>((resolve, reject) => {
      connect.once('connect', (res: IncomingMessage, tunnelled: Socket) => resolve([res, tunnelled]));
      connect.once('response', (res: IncomingMessage) => resolve([res, socket]));
      connect.once('error', reject);
      connect.end();
    });
    if (response.statusCode !== 200) throw new ProxyUnusable(`the proxy answered CONNECT with ${response.statusCode}`);
    return tunnel;
  } catch (error) {
    socket.destroy();
    throw error instanceof ProxyUnusable ? error : new ProxyUnusable(`the proxy refused the connection: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * How a plain-http request reaches `target` through the proxy: to an http(s) proxy in absolute
 * form with its credentials, through a SOCKS tunnel in origin form. One connection per request.
 * Either way to `address`, the one the egress guard checked; the Host header keeps the name.
 */
export async function plainHttpRoute(session: ProxyDialContext, proxy: OutboundProxy, target: URL, port: number, address: string): Promise<{ socket: Socket; path: string; headers: OutgoingHttpHeaders }> {
  if (forwardsPlainHttp(proxy)) {
    const pinned = new URL(target.href);
    pinned.hostname = address.includes(':') ? `[${address}]` : address;
    pinned.port = String(port);
    return { socket: await dialProxy(session, proxy), path: pinned.href, headers: authorization(proxy) };
  }
  return { socket: await tunnelThrough(session, proxy, address, port), path: target.pathname + target.search, headers: {} };
}
