import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { EGRESS_REPLY_HEADER } from '../../core/ports.js';

export type Reply = readonly [status: number, body: string];

/** What the browser sees when a check fails; the session's failureFor() is the reliable signal. */
export const REPLIES = {
  refused: [403, 'URL_NOT_ALLOWED'],
  dns: [502, 'DNS_FAILED'],
  badRequest: [400, 'BAD_REQUEST'],
  badUpstreamResponse: [502, 'BAD_UPSTREAM_RESPONSE'],
  unreachable: [502, 'UPSTREAM_UNREACHABLE'],
} as const satisfies Record<string, Reply>;


/** Answers a plain-http request with the proxy's own reply (or drops it if answering began). */
export function answer(res: ServerResponse, [status, body]: Reply): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, {
    'Content-Type': 'text/plain',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    [EGRESS_REPLY_HEADER]: body,
  });
  res.end(body);
}

/** Answers a CONNECT on the raw socket, then closes it. */
export function answerTunnel(socket: Socket, [status, body]: Reply): void {
  const reason = STATUS_CODES[status] ?? '';
  const response =
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `${EGRESS_REPLY_HEADER}: ${body}\r\nConnection: close\r\n\r\n${body}`;
  // Server sockets are half-open capable: without the destroy a silent client would keep it.
  socket.end(response, () => socket.destroy());
}
