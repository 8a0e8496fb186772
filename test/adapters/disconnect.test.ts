import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { abortOnDisconnect } from '../../adapters/node-bridge.js';

/** A real server whose handler the test drives; each request is handed over as it arrives. */
async function serve(): Promise<{ port: number; next: () => Promise<{ req: IncomingMessage; res: ServerResponse }>; close: () => Promise<void> }> {
  const waiting: ((exchange: { req: IncomingMessage; res: ServerResponse }) => void)[] = [];
  const server = http.createServer((req, res) => waiting.shift()?.({ req, res }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    next: () => new Promise((resolve) => waiting.push(resolve)),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const untilClosed = (res: ServerResponse): Promise<void> => new Promise((resolve) => (res.closed ? resolve() : res.once('close', () => resolve())));

describe('client disconnect as an abort signal', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => close?.());

  /** A request the server has received and not answered, and the client that sent it. */
  async function pendingRequest(): Promise<{ res: ServerResponse; client: http.ClientRequest }> {
    const server = await serve();
    close = server.close;
    const arrived = server.next();
    const client = http.get({ port: server.port, path: '/' }).on('error', () => undefined);
    const { res } = await arrived;
    return { res, client };
  }

  it('aborts a signal first read after the client has gone', async () => {
    const { res, client } = await pendingRequest();
    const options = abortOnDisconnect(res);
    client.destroy();
    await untilClosed(res);
    expect(options.signal?.aborted).toBe(true);
  });

  it('aborts a signal read earlier when the client goes away, and makes it only once', async () => {
    const { res, client } = await pendingRequest();
    const options = abortOnDisconnect(res);
    const signal = options.signal;
    expect(signal?.aborted).toBe(false);
    expect(options.signal).toBe(signal);
    client.destroy();
    await untilClosed(res);
    expect(signal?.aborted).toBe(true);
  });

  it('does not abort after a complete response, and listens to nothing until read', async () => {
    const server = await serve();
    close = server.close;
    const arrived = server.next();
    const answered = new Promise<number>((resolve) => http.get({ port: server.port, path: '/' }, (r) => r.resume().on('end', () => resolve(r.statusCode ?? 0))));
    const { res } = await arrived;
    const listeners = res.listenerCount('close');
    const options = abortOnDisconnect(res);
    expect(res.listenerCount('close')).toBe(listeners);
    const signal = options.signal;
    expect(res.listenerCount('close')).toBe(listeners + 1);
    res.end('done');
    expect(await answered).toBe(200);
    await untilClosed(res);
    expect(signal?.aborted).toBe(false);
  });
});
