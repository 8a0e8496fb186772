import { request, type ClientRequest, type IncomingMessage, type RequestOptions, type ServerResponse } from 'node:http';
import { bareHost } from '../host-name.js';
import { stripHopByHop } from './hop-by-hop.js';
import { limitConnectTime, pinnedConnectOptions } from './upstream-dial.js';
import { authority } from './authority.js';
import { answer, REPLIES } from './replies.js';
import type { ProxyConnectionContext } from './connection.js';
import { plainHttpRoute, ProxyUnusable } from './through-proxy.js';

/** Plain http: the browser sends absolute-form requests, one check per request. */
export function forwardHttp(session: ProxyConnectionContext, req: IncomingMessage, res: ServerResponse): void {
  res.on('error', () => {});
  let target: URL;
  try {
    target = new URL(req.url ?? '');
  } catch {
    // Origin-form: someone talking to the proxy as if it were a web server.
    return void answer(res, REPLIES.badRequest);
  }
  const port = target.port === '' ? 80 : Number(target.port);
  const key = authority(target.hostname, String(port));
  if (target.protocol !== 'http:') {
    session.record(key, 'refused', target.href);
    return void answer(res, REPLIES.refused);
  }
  void session
    .check(target.hostname, port)
    .then((verdict) => {
      if (req.socket.destroyed) return;
      if (!verdict.ok) {
        session.record(key, verdict.reason, target.href);
        return answer(res, REPLIES[verdict.reason]);
      }
      session.succeeded(key);
      sendUpstream(session, req, res, { target, port, addresses: verdict.addresses, key });
    })
    // Last line of defence: a bug here must cost one request, not the process.
    .catch(() => res.destroy());
}

interface Upstream {
  target: URL;
  port: number;
  /** The checked addresses: the only ones dialled. */
  addresses: string[];
  key: string;
}

function sendUpstream(session: ProxyConnectionContext, req: IncomingMessage, res: ServerResponse, { target, port, addresses, key }: Upstream): void {
  const headers = stripHopByHop(req.rawHeaders);
  let current: ClientRequest | undefined;
  // The browser gave up (navigation replaced, page closed): stop the upstream exchange too.
  res.on('close', () => {
    if (!res.writableFinished) current?.destroy();
  });
  req.on('error', () => current?.destroy());

  const attempt = async (mayRetry: boolean): Promise<void> => {
    let upstream: ClientRequest;
    try {
      upstream = request({ method: req.method, ...(await routeTo(session, target, port, addresses, headers)) });
    } catch (error) {
      if (error instanceof ProxyUnusable) {
        session.record(key, 'proxy');
        return answer(res, REPLIES.unreachable);
      }
      // Node refuses to write some header values its parser accepted; so be it.
      return answer(res, REPLIES.badRequest);
    }
    current = upstream;
    upstream.on('socket', (socket) => limitConnectTime(socket, session.connectTimeoutMs));
    upstream.on('response', (incoming) => {
      incoming.on('error', () => res.destroy());
      // The capture's proxy refusing its credentials is its answer, not the page's.
      if (session.upstream && incoming.statusCode === 407) {
        incoming.resume();
        session.record(key, 'proxy');
        return answer(res, REPLIES.unreachable);
      }
      try {
        res.writeHead(incoming.statusCode ?? 502, incoming.statusMessage, stripHopByHop(incoming.rawHeaders));
      } catch {
        incoming.destroy();
        return answer(res, REPLIES.badUpstreamResponse);
      }
      incoming.pipe(res);
    });
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      // A kept-alive connection the server closed just as we reused it: the request never
      // reached the server, and one without a body can simply be sent again.
      if (mayRetry && upstream.reusedSocket && error.code === 'ECONNRESET' && !res.headersSent) return void attempt(false);
      if (res.headersSent) return void res.destroy();
      session.record(key, 'unreachable');
      answer(res, REPLIES.unreachable);
    });
    if (hasBody(req)) req.pipe(upstream);
    else upstream.end();
  };
  void attempt(!hasBody(req)).catch(() => res.destroy());
}

/**
 * Where one request goes: straight to the checked addresses over the session's keep-alive pool, or
 * through the capture's proxy on a connection of its own.
 */
async function routeTo(session: ProxyConnectionContext, target: URL, port: number, addresses: string[], headers: string[]): Promise<RequestOptions> {
  // The browser's own Host header is forwarded untouched (it is among `headers`).
  const setHost = !hasHeader(headers, 'host');
  if (!session.upstream) {
    return { ...pinnedConnectOptions(bareHost(target.hostname), port, addresses), path: target.pathname + target.search, headers, setHost, agent: session.agent };
  }
  const route = await plainHttpRoute(session, session.upstream, target, port, addresses[0] as string);
  return { path: route.path, headers: [...headers, ...Object.entries(route.headers).flatMap(([name, value]) => [name, String(value)])], setHost, createConnection: () => route.socket };
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function hasHeader(rawHeaders: readonly string[], name: string): boolean {
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === name) return true;
  return false;
}
