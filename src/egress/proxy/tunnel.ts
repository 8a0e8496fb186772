import { connect, type Socket } from 'node:net';
import { bareHost } from '../host-name.js';
import { limitConnectTime, pinnedConnectOptions } from './upstream-dial.js';
import { authority, parseAuthority } from './authority.js';
import { answerTunnel, REPLIES } from './replies.js';
import type { ProxyConnectionContext } from './connection.js';
import { tunnelThrough } from './through-proxy.js';

/** A connection to one of the checked addresses, once established. */
function dialDirect(session: ProxyConnectionContext, hostname: string, port: number, addresses: string[]): Promise<Socket> {
  const upstream = connect(pinnedConnectOptions(bareHost(hostname), port, addresses));
  session.track(upstream);
  limitConnectTime(upstream, session.connectTimeoutMs);
  return new Promise((resolve, reject) => {
    upstream.once('connect', () => resolve(upstream));
    upstream.once('error', reject);
  });
}

/** How one tunnelling protocol (HTTP CONNECT, SOCKS5) answers the client at each outcome. */
export interface TunnelAnswers {
  /** The check refused the host or could not resolve it; the answer closes the client. */
  refuse(reason: 'refused' | 'dns'): void;
  /** No connection could be made (`error` says why); the answer closes the client. */
  unreachable(error: unknown): void;
  /** The connection stands: the client is told before any byte is piped. */
  established(upstream: Socket): void;
}

/**
 * A checked tunnel to `hostname:port`, whichever protocol asked for it: checked once when it opens,
 * dialled only to checked addresses, or through the capture's own proxy; then an opaque pipe.
 */
export function carryTunnel(session: ProxyConnectionContext, { hostname, port }: { hostname: string; port: string }, client: Socket, head: Buffer, answers: TunnelAnswers): void {
  client.on('error', () => client.destroy());
  const key = authority(hostname, port);
  const portNumber = Number(port);
  void session
    .check(hostname, portNumber)
    .then(async (verdict) => {
      if (client.destroyed) return;
      if (!verdict.ok) {
        session.record(key, verdict.reason, key);
        return answers.refuse(verdict.reason);
      }
      session.succeeded(key);
      let upstream: Socket;
      try {
        upstream = await (session.upstream ? tunnelThrough(session, session.upstream, verdict.addresses[0] as string, portNumber) : dialDirect(session, hostname, portNumber, verdict.addresses));
      } catch (error) {
        session.record(key, session.upstream ? 'proxy' : 'unreachable');
        return answers.unreachable(error);
      }
      if (client.destroyed) return void upstream.destroy();
      answers.established(upstream);
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
      upstream.on('error', () => client.destroy());
      upstream.on('close', () => client.destroy());
      client.on('close', () => upstream.destroy());
    })
    .catch(() => client.destroy());
}

/** https, ws and wss from an HTTP proxy client: CONNECT host:port. */
export function openTunnel(session: ProxyConnectionContext, requestTarget: string, client: Socket, head: Buffer): void {
  const target = parseAuthority(requestTarget);
  if (target === undefined) {
    client.on('error', () => client.destroy());
    return answerTunnel(client, REPLIES.badRequest);
  }
  carryTunnel(session, target, client, head, {
    refuse: (reason) => answerTunnel(client, REPLIES[reason]),
    unreachable: () => answerTunnel(client, REPLIES.unreachable),
    established: () => void client.write('HTTP/1.1 200 Connection Established\r\n\r\n'),
  });
}
