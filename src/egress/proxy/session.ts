import { Agent, createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { EgressFailure, OutboundProxy } from '../../core/ports.js';
import { checkHost, type EgressPolicy, type HostVerdict } from '../egress-policy.js';
import { createPinningResolver } from '../pinning-resolver.js';
import type { Resolver } from '../resolver.js';
import { authority, portOf } from './authority.js';
import type { ProxyConnectionContext } from './connection.js';
import { forwardHttp } from './forward-http.js';
import { openTunnel } from './tunnel.js';
import { acceptSocks5, SOCKS_VERSION } from './socks5.js';

export interface EgressSession {
  /**
   * For `newContext({ proxy: { server } })`: 'socks5://127.0.0.1:PORT', or 'http://127.0.0.1:PORT' when
   * the context leaves through a proxy of its own (plain http through an HTTP proxy needs its absolute
   * form). The port speaks both: a SOCKS5 client's first byte tells it apart from an HTTP one.
   */
  readonly server: string;
  /**
   * What was refused, in order: full URLs for plain http sent as HTTP proxy requests, `host:port`
   * for tunnels (SOCKS5, and CONNECT for https, ws, wss).
   */
  refusedUrls(): string[];
  /**
   * The last failure for the host and port `url` points to, if its last connection failed. The
   * browser reports a refused tunnel as a generic net error (ERR_SOCKS_CONNECTION_FAILED,
   * ERR_TUNNEL_CONNECTION_FAILED) and a refused HTTP proxy request as an ordinary 403 page; this
   * tells the engine which it was.
   */
  failureFor(url: string | URL): EgressFailure | undefined;
  /** Forgets the refusals and failures so far: its context is about to serve another capture. */
  forgetFailures(): void;
  close(): Promise<void>;
}

export interface SessionOptions {
  /** The capture's own proxy: every connection of the context leaves through it. */
  upstream?: OutboundProxy;
  /** How long a session keeps one name's checked answer (see createPinningResolver). */
  dnsPinMs: number;
  connectTimeoutMs: number;
}

/** A hostile page can fire requests without end; the log keeps the first ones. */
const MAX_RECORDED = 1000;

/**
 * One listener for one browser context, so refusals are attributed to that capture without proxy
 * auth (proxy credentials make Playwright intercept every request, which costs speed and the HTTP cache).
 */
export class ProxySession implements EgressSession, ProxyConnectionContext {
  server = '';
  /** Per session so closing it also ends its upstream keep-alive connections. */
  readonly agent = new Agent({ keepAlive: true, scheduling: 'lifo' });
  readonly connectTimeoutMs: number;
  readonly upstream: OutboundProxy | undefined;
  private readonly listener: TcpServer;
  /** Never listens itself: it is handed the connections whose first byte is not SOCKS5's. */
  private readonly httpServer: Server;
  private readonly sockets = new Set<Socket>();
  private readonly resolve: Resolver;
  private readonly refused: string[] = [];
  private readonly failures = new Map<string, EgressFailure>();
  private closing: Promise<void> | undefined;

  constructor(
    private readonly policy: EgressPolicy,
    options: SessionOptions,
    private readonly onClosed: () => void,
  ) {
    this.resolve = createPinningResolver(policy.resolver, options.dnsPinMs);
    this.connectTimeoutMs = options.connectTimeoutMs;
    this.upstream = options.upstream;
    this.httpServer = createServer({ noDelay: true }, (req, res) => forwardHttp(this, req, res));
    this.httpServer.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => openTunnel(this, req.url ?? '', client as Socket, head));
    this.httpServer.on('clientError', (_error, socket: Duplex) => socket.destroy());
    this.listener = createTcpServer({ noDelay: true }, (socket) => this.accept(socket));
  }

  /** Reads a connection's first byte to tell SOCKS5 from HTTP; a client that says nothing in time is closed. */
  private accept(socket: Socket): void {
    this.track(socket);
    socket.on('error', () => socket.destroy());
    const timer = setTimeout(() => socket.destroy(), this.connectTimeoutMs);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    socket.once('data', (first: Buffer) => {
      if (first[0] === SOCKS_VERSION) return acceptSocks5(this, socket, first, () => clearTimeout(timer));
      clearTimeout(timer);
      socket.pause();
      socket.unshift(first);
      this.httpServer.emit('connection', socket);
      socket.resume();
    });
  }

  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.listener.once('error', reject);
      this.listener.listen(0, '127.0.0.1', () => {
        this.listener.off('error', reject);
        const address = this.listener.address();
        if (address === null || typeof address === 'string') return reject(new Error('Proxy has no TCP address'));
        this.server = `${this.upstream ? 'http' : 'socks5'}://127.0.0.1:${address.port}`;
        resolve();
      });
    });
  }

  refusedUrls(): string[] {
    return [...this.refused];
  }

  failureFor(url: string | URL): EgressFailure | undefined {
    let parsed: URL;
    try {
      parsed = typeof url === 'string' ? new URL(url) : url;
    } catch {
      return undefined;
    }
    return this.failures.get(authority(parsed.hostname, portOf(parsed)));
  }

  forgetFailures(): void {
    this.refused.length = 0;
    this.failures.clear();
  }

  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      this.listener.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
      this.agent.destroy();
      this.onClosed();
    });
    return this.closing;
  }

  check(hostname: string, port: number): Promise<HostVerdict> {
    // A throwing test hook or resolver must fail closed, never crash the proxy.
    return checkHost(hostname, port, this.policy, this.resolve).catch((): HostVerdict => ({ ok: false, reason: 'refused' }));
  }

  record(key: string, failure: EgressFailure, refusedAs?: string): void {
    if (this.failures.size >= MAX_RECORDED) this.failures.delete(this.failures.keys().next().value!);
    this.failures.set(key, failure);
    if (failure === 'refused' && refusedAs !== undefined && this.refused.length < MAX_RECORDED) this.refused.push(refusedAs);
  }

  succeeded(key: string): void {
    this.failures.delete(key);
  }

  track(socket: Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    if (this.closing !== undefined) socket.destroy();
  }
}
