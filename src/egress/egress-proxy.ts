import {
  Agent,
  createServer,
  request,
  STATUS_CODES,
  type ClientRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { checkHost, type EgressPolicy, type HostVerdict } from './egress-policy.js';
import { bareHost } from './host-name.js';
import { stripHopByHop } from './hop-by-hop.js';
import { createPinningResolver } from './pinning-resolver.js';
import type { Resolver } from './resolver.js';
import { limitConnectTime, pinnedConnectOptions } from './upstream-dial.js';

export interface EgressProxy {
  /**
   * Opens a listener for one browser context, so refusals are attributed to that capture without
   * proxy auth (proxy credentials make Playwright intercept every request, which costs speed and
   * the HTTP cache).
   */
  openSession(): Promise<EgressSession>;
  close(): Promise<void>;
}

/** Why the proxy did not carry a connection. */
export type EgressFailure = 'refused' | 'dns' | 'unreachable';

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
  close(): Promise<void>;
}

export interface EgressProxyOptions {
  /** How long a session keeps one name's checked answer (see createPinningResolver). Default 60 s. */
  dnsPinMs?: number;
  /** Upper bound for establishing one upstream connection. Default 15 s. */
  connectTimeoutMs?: number;
}

/** What the browser sees when a check fails; the session's failureFor() is the reliable signal. */
const REPLIES = {
  refused: [403, 'URL_NOT_ALLOWED'],
  dns: [502, 'DNS_FAILED'],
} as const satisfies Record<string, Reply>;
/** Marks responses the proxy wrote itself, for logs and humans reading a capture's HAR. */
const PROXY_HEADER = 'X-Egress-Proxy';
/** A hostile page can fire requests without end; the log keeps the first ones. */
const MAX_RECORDED = 1000;

export function createEgressProxy(policy: EgressPolicy, options: EgressProxyOptions = {}): EgressProxy {
  const sessions = new Set<Session>();
  let closed = false;
  return {
    async openSession() {
      if (closed) throw new Error('Egress proxy is closed');
      const session = new Session(policy, options, () => sessions.delete(session));
      sessions.add(session);
      await session.listen();
      return session;
    },
    async close() {
      closed = true;
      await Promise.all([...sessions].map((session) => session.close()));
    },
  };
}

class Session implements EgressSession {
  server = '';
  private readonly httpServer: Server;
  private readonly sockets = new Set<Socket>();
  /** Per session so closing it also ends its upstream keep-alive connections. */
  private readonly agent = new Agent({ keepAlive: true, scheduling: 'lifo' });
  private readonly resolve: Resolver;
  private readonly connectTimeoutMs: number;
  private readonly refused: string[] = [];
  private readonly failures = new Map<string, EgressFailure>();
  private closing: Promise<void> | undefined;

  constructor(
    private readonly policy: EgressPolicy,
    options: EgressProxyOptions,
    private readonly onClosed: () => void,
  ) {
    this.resolve = createPinningResolver(policy.resolver, options.dnsPinMs ?? 60_000);
    this.connectTimeoutMs = options.connectTimeoutMs ?? 15_000;
    this.httpServer = createServer({ noDelay: true }, (req, res) => this.onRequest(req, res));
    this.httpServer.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) =>
      this.onConnect(req, client as Socket, head),
    );
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
    const secure = parsed.protocol === 'https:' || parsed.protocol === 'wss:';
    const port = parsed.port !== '' ? parsed.port : secure ? '443' : '80';
    return this.failures.get(authority(parsed.hostname, port));
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

  /** Plain http: the browser sends absolute-form requests, one check per request. */
  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    res.on('error', () => {});
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      // Origin-form: someone talking to the proxy as if it were a web server.
      return void answer(res, [400, 'BAD_REQUEST']);
    }
    const port = target.port === '' ? 80 : Number(target.port);
    const key = authority(target.hostname, String(port));
    if (target.protocol !== 'http:') {
      this.record(key, 'refused', target.href);
      return void answer(res, REPLIES.refused);
    }
    void this.check(target.hostname, port).then((verdict) => {
      if (req.socket.destroyed) return;
      if (!verdict.ok) {
        this.record(key, verdict.reason, target.href);
        return answer(res, REPLIES[verdict.reason]);
      }
      this.failures.delete(key);
      this.forward(req, res, target, port, verdict.addresses, key);
    })
      // Last line of defence: a bug here must cost one request, not the process.
      .catch(() => res.destroy());
  }

  private forward(
    req: IncomingMessage,
    res: ServerResponse,
    target: URL,
    port: number,
    addresses: string[],
    key: string,
  ): void {
    const headers = stripHopByHop(req.rawHeaders);
    let current: ClientRequest | undefined;
    // The browser gave up (navigation replaced, page closed): stop the upstream exchange too.
    res.on('close', () => {
      if (!res.writableFinished) current?.destroy();
    });
    req.on('error', () => current?.destroy());

    const attempt = (mayRetry: boolean): void => {
      let upstream: ClientRequest;
      try {
        upstream = request({
          ...pinnedConnectOptions(bareHost(target.hostname), port, addresses),
          method: req.method,
          path: target.pathname + target.search,
          headers,
          // The browser's own Host header is forwarded untouched (it is among `headers`).
          setHost: !hasHeader(headers, 'host'),
          agent: this.agent,
        });
      } catch {
        // Node refuses to write some header values its parser accepted; so be it.
        return answer(res, [400, 'BAD_REQUEST']);
      }
      current = upstream;
      upstream.on('socket', (socket) => limitConnectTime(socket, this.connectTimeoutMs));
      upstream.on('response', (incoming) => {
        incoming.on('error', () => res.destroy());
        try {
          res.writeHead(incoming.statusCode ?? 502, incoming.statusMessage, stripHopByHop(incoming.rawHeaders));
        } catch {
          incoming.destroy();
          return answer(res, [502, 'BAD_UPSTREAM_RESPONSE']);
        }
        incoming.pipe(res);
      });
      upstream.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the server closed just as we reused it: the request never
        // reached the server, and one without a body can simply be sent again.
        if (mayRetry && upstream.reusedSocket && error.code === 'ECONNRESET' && !res.headersSent) {
          return attempt(false);
        }
        if (res.headersSent) return void res.destroy();
        this.record(key, 'unreachable');
        answer(res, [502, 'UPSTREAM_UNREACHABLE']);
      });
      if (hasBody(req)) req.pipe(upstream);
      else upstream.end();
    };
    attempt(!hasBody(req));
  }

  /** https, ws and wss: an opaque tunnel, checked once when it opens. */
  private onConnect(req: IncomingMessage, client: Socket, head: Buffer): void {
    client.on('error', () => client.destroy());
    const target = parseAuthority(req.url ?? '');
    if (target === undefined) return void endWith(client, rawResponse([400, 'BAD_REQUEST']));
    const key = authority(target.hostname, target.port);
    void this.check(target.hostname, Number(target.port)).then((verdict) => {
      if (client.destroyed) return;
      if (!verdict.ok) {
        this.record(key, verdict.reason, key);
        return void endWith(client, rawResponse(REPLIES[verdict.reason]));
      }
      this.failures.delete(key);
      const port = Number(target.port);
      const upstream = connect(pinnedConnectOptions(bareHost(target.hostname), port, verdict.addresses));
      this.track(upstream);
      limitConnectTime(upstream, this.connectTimeoutMs);
      let established = false;
      upstream.once('connect', () => {
        established = true;
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => {
        if (established) return void client.destroy();
        this.record(key, 'unreachable');
        endWith(client, rawResponse([502, 'UPSTREAM_UNREACHABLE']));
      });
      upstream.on('close', () => {
        if (established) client.destroy();
      });
      client.on('close', () => upstream.destroy());
    })
      .catch(() => client.destroy());
  }

  private check(hostname: string, port: number): Promise<HostVerdict> {
    // A throwing test hook or resolver must fail closed, never crash the proxy.
    return checkHost(hostname, port, this.policy, this.resolve).catch(
      (): HostVerdict => ({ ok: false, reason: 'refused' }),
    );
  }

  private record(key: string, failure: EgressFailure, refusedAs?: string): void {
    if (this.failures.size >= MAX_RECORDED) this.failures.delete(this.failures.keys().next().value!);
    this.failures.set(key, failure);
    if (failure === 'refused' && refusedAs !== undefined && this.refused.length < MAX_RECORDED) {
      this.refused.push(refusedAs);
    }
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    if (this.closing !== undefined) socket.destroy();
  }
}

/** `host:port` as the browser writes it in CONNECT; the host is normalised like a URL host. */
function parseAuthority(raw: string): { hostname: string; port: string } | undefined {
  const match = /^([^/?#@\\\s]+):(\d{1,5})$/.exec(raw);
  if (match === null) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  try {
    return { hostname: new URL(`http://${match[1]}/`).hostname, port: String(port) };
  } catch {
    return undefined;
  }
}

/** Server sockets are half-open capable: without the destroy a silent client would keep it. */
function endWith(socket: Socket, response: string): void {
  socket.end(response, () => socket.destroy());
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function hasHeader(rawHeaders: readonly string[], name: string): boolean {
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === name) return true;
  return false;
}

function authority(hostname: string, port: string): string {
  return `${hostname.toLowerCase()}:${port}`;
}

type Reply = readonly [status: number, body: string];

function answer(res: ServerResponse, [status, body]: Reply): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, {
    'Content-Type': 'text/plain',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    [PROXY_HEADER]: body,
  });
  res.end(body);
}

function rawResponse([status, body]: Reply): string {
  const reason = STATUS_CODES[status] ?? '';
  return (
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `${PROXY_HEADER}: ${body}\r\nConnection: close\r\n\r\n${body}`
  );
}
