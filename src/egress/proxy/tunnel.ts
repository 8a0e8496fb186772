import { connect, type Socket } from 'node:net';
import { bareHost } from '../host-name.js';
import { limitConnectTime, pinnedConnectOptions } from './upstream-dial.js';
import { authority, parseAuthority } from './authority.js';
import { answerTunnel, REPLIES } from './replies.js';
import type { ProxyConnectionContext } from './connection.js';

/** https, ws and wss: an opaque tunnel, checked once when it opens, dialled only to checked addresses. */
export function openTunnel(session: ProxyConnectionContext, requestTarget: string, client: Socket, head: Buffer): void {
  client.on('error', () => client.destroy());
  const target = parseAuthority(requestTarget);
  if (target === undefined) return answerTunnel(client, REPLIES.badRequest);
  const key = authority(target.hostname, target.port);
  const port = Number(target.port);
  void session
    .check(target.hostname, port)
    .then((verdict) => {
      if (client.destroyed) return;
      if (!verdict.ok) {
        session.record(key, verdict.reason, key);
        return answerTunnel(client, REPLIES[verdict.reason]);
      }
      session.succeeded(key);
      const upstream = connect(pinnedConnectOptions(bareHost(target.hostname), port, verdict.addresses));
      session.track(upstream);
      limitConnectTime(upstream, session.connectTimeoutMs);
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
        session.record(key, 'unreachable');
        answerTunnel(client, REPLIES.unreachable);
      });
      upstream.on('close', () => {
        if (established) client.destroy();
      });
      client.on('close', () => upstream.destroy());
    })
    .catch(() => client.destroy());
}
