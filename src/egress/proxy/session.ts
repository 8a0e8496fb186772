import { Agent, createServer, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { EgressFailure, OutboundProxy } from '../../core/ports.js';
import { checkHost, type EgressPolicy, type HostVerdict } from '../egress-policy.js';
import { createPinningResolver } from '../pinning-resolver.js';
import type { Resolver } from '../resolver.js';
import { authority, portOf } from './authority.js';
import type { ProxyConnectionContext } from './connection.js';
import { forwardHttp } from './forward-http.js';
import { openTunnel } from './tunnel.js';

export interface EgressSession {
  /** For `newContext({ proxy: { server } })`: 'http://127.0.0.1:PORT'. */
  readonly server: string;
  /** What was refused, in order: full URLs for plain http, `host:port` for tunnels (https, ws, wss). */
  refusedUrls(): string[];
  /**
   * The last failure for the host and port `url` points to, if its last connection failed. The
   * browser reports a refused tunnel as a generic net::ERR_TUNNEL_CONNECTION_FAILED and a refused
   * http request as an ordinary 403 page; this tells the engine which it was.
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
    this.httpServer.on('connection', (socket: Socket) => this.track(socket));
    this.httpServer.on('clientError', (_error, socket: Duplex) => socket.destroy());
  }

  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.httpServer.once('error', reject);
      this.httpServer.listen(0, '127.0.0.1', () => {
        this.httpServer.off('error', reject);
        const address = this.httpServer.address();
        if (address === null || typeof address === 'string') return reject(new Error('Proxy has no TCP address'));
        this.server = `http://127.0.0.1:${address.port}`;
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
      this.httpServer.close(() => resolve());
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
