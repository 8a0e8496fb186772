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

/**
 * https, ws and wss: an opaque tunnel, checked once when it opens, dialled only to checked
 * addresses, or through the capture's own proxy.
 */
export function openTunnel(session: ProxyConnectionContext, requestTarget: string, client: Socket, head: Buffer): void {
  client.on('error', () => client.destroy());
  const target = parseAuthority(requestTarget);
  if (target === undefined) return answerTunnel(client, REPLIES.badRequest);
  const key = authority(target.hostname, target.port);
  const port = Number(target.port);
  void session
    .check(target.hostname, port)
    .then(async (verdict) => {
      if (client.destroyed) return;
      if (!verdict.ok) {
        session.record(key, verdict.reason, key);
        return answerTunnel(client, REPLIES[verdict.reason]);
      }
      session.succeeded(key);
      let upstream: Socket;
      try {
        upstream = await (session.upstream ? tunnelThrough(session, session.upstream, verdict.addresses[0] as string, port) : dialDirect(session, target.hostname, port, verdict.addresses));
      } catch {
        session.record(key, session.upstream ? 'proxy' : 'unreachable');
        return answerTunnel(client, REPLIES.unreachable);
      }
      if (client.destroyed) return void upstream.destroy();
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
      upstream.on('error', () => client.destroy());
      upstream.on('close', () => client.destroy());
      client.on('close', () => upstream.destroy());
    })
    .catch(() => client.destroy());
}
